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
