# torch.storage: UntypedStorage is what Tensor.untyped_storage() returns
# (storage.go: it keeps its tensor's memory alive, as PyTorch's storage
# does); TypedStorage is the deprecated typed view of one. A storage is
# made with its tensor here: constructing one directly (memory of its
# own) is not modelled. torch.is_storage tells them from other objects.
# UntypedStorage is set in this module before it runs.


class TypedStorage:
    __module__ = "torch"

    def __init__(self, *args, **kwargs):
        raise _refusal(NotImplementedError("torch.TypedStorage(...) is not modelled by gpumemrepl: a storage is made with its tensor (Tensor.untyped_storage())"))


def is_storage(obj):
    return isinstance(obj, (UntypedStorage, TypedStorage))
