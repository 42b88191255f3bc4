# torch.nn, as gpumemrepl runs it (embedded by module_hooks.go).
import weakref


class RemovableHandle:
    # torch.utils.hooks.RemovableHandle: weak references to the hooks'
    # registry and the registries beside it, ids from one counter; its
    # tuple of a generator's weak references is what PyTorch makes (CPython
    # takes a 10-tuple for it and shrinks it)
    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def _module_compile(self, *args, **kwargs):
    # Module.compile: torch.compile of the module's call, in place; the
    # module runs eagerly here, as torch.compile's result does, with its
    # note once a run (unless disable=True)
    import torch
    if not kwargs.get('disable', False):
        torch.compiler._compile_note()


Module.compile = _module_compile
del _module_compile
