# torch.nn, as gpumemrepl runs it (embedded by module_hooks.go).
class RemovableHandle:
    def __init__(self, hooks, id):
        self.hooks = hooks
        self.id = id

    def remove(self):
        if self.id in self.hooks:
            del self.hooks[self.id]

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
