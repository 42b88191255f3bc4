# torch.autograd.graph's saved-tensor hooks, as PyTorch 2.11 writes them
# (torch/autograd/graph.py): saved_tensors_hooks installs a pack and an
# unpack hook for every tensor autograd saves while it is entered;
# save_on_cpu is a pair of them that keeps each saved tensor on the host
# (pinned, with pin_memory=True) and copies it back in backward;
# disable_saved_tensors_hooks makes installing any an error.


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """save_on_cpu(pin_memory=False, device_type='cuda'): each saved tensor is copied to the host as it is saved (into pinned memory with pin_memory=True, by an empty pinned tensor and copy_) and back to its device when backward reads it (non_blocking when pinned)."""

    def __init__(self, pin_memory=False, device_type='cuda'):
        import torch
        backend = getattr(torch, device_type, torch.cuda)

        def to_host(t):
            if pin_memory:
                host = torch.empty(t.size(), dtype=t.dtype, pin_memory=backend.is_available() and not t.is_sparse)
                host.copy_(t)
            else:
                host = t.cpu()
            return t.device, host

        def to_device(saved):
            return saved[1].to(saved[0], non_blocking=pin_memory)

        super().__init__(to_host, to_device)


class disable_saved_tensors_hooks:
    def __init__(self, error_message):
        self.error_message = error_message
        self.prev = []

    def __enter__(self):
        self.prev.append(_saved_tensors_hooks_get_disabled_error_message())
        _saved_tensors_hooks_disable(self.error_message)

    def __exit__(self, *args):
        prev = self.prev.pop()
        if prev is None:
            _saved_tensors_hooks_enable()
        else:
            _saved_tensors_hooks_disable(prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper
