# torch.serialization's allowlist of the globals a weights_only torch.load
# may rebuild. The tool's torch.load reads a checkpoint's tensors and plain
# data only (it builds no object of a class the checkpoint names), so the
# list is kept, as PyTorch keeps it, and changes what no load does.
_allowed = []


def add_safe_globals(safe_globals):
    _allowed.extend(safe_globals)


def get_safe_globals():
    return list(_allowed)


def clear_safe_globals():
    del _allowed[:]


class safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        _allowed.extend(self.safe_globals)

    def __exit__(self, *exc):
        if self.safe_globals:
            del _allowed[-len(self.safe_globals):]
        return False
