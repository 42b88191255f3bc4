# torch.jit as eager PyTorch sees it: outside TorchScript nothing is being
# scripted or traced, and the decorators hand back the function they were
# given (PyTorch marks it for the compiler, which eager code never runs).
from typing import Final


def is_scripting():
    return False


def is_tracing():
    return False


def ignore(drop=False, **kwargs):
    # @torch.jit.ignore, or @torch.jit.ignore(drop=True)
    if callable(drop):
        return drop

    def decorator(fn):
        return fn
    return decorator


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def script_if_tracing(fn):
    return fn


_script_if_tracing = script_if_tracing


def _overload(fn):
    return fn


def _overload_method(fn):
    return fn


def _unwrap_optional(x):
    return x
