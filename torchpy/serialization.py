# torch.serialization beside torch.save and torch.load (which it
# re-exports): the allowlist of globals weights_only loading trusts
# (add_safe_globals, safe_globals, get_safe_globals, clear_safe_globals;
# the tool's loader reads no pickled code, so the list changes no
# figure), location_tag (a storage's device as a checkpoint names it)
# and normalize_storage_type.
_safe = []


def save(*args, **kwargs):
    import torch
    return torch.save(*args, **kwargs)


def load(*args, **kwargs):
    import torch
    return torch.load(*args, **kwargs)


def add_safe_globals(safe_globals):
    _safe.extend(safe_globals)


def get_safe_globals():
    return list(_safe)


def clear_safe_globals():
    del _safe[:]


class safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._before = len(_safe)
        _safe.extend(self.safe_globals)

    def __exit__(self, *exc):
        del _safe[self._before:]
        return False


def location_tag(storage):
    return str(storage.device)


def normalize_storage_type(storage_type):
    import torch
    return getattr(torch, storage_type.__name__)
