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


_noted = []


def _note():
    # once a run: what script and trace give back here, and how
    # TorchScript's figures differ
    if not _noted:
        _noted.append(True)
        import sys
        sys.stderr.write("gpumemrepl: torch.jit.script and torch.jit.trace give back the function or module itself here, "
                         "run eagerly, so the figures are eager PyTorch's, an estimate for TorchScript: its fuser may fuse "
                         "elementwise ops on the GPU (their temporaries then never made)\n")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    # a scripted module shares the module's parameters and buffers: nothing
    # is allocated, and its forward runs the same ops
    _note()
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-05,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    # tracing runs the function once on its example inputs; its outputs go
    import torch
    _note()
    args = example_inputs if isinstance(example_inputs, tuple) else (() if example_inputs is None else (example_inputs,))
    kwargs = example_kwarg_inputs or {}
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
    torch.nn._estimate('torch.jit.trace', "the function run once on its example inputs, as tracing runs it; check_trace's "
                       "second trace and its comparison runs (under no_grad) are not modelled", *tensors)
    out = func(*args, **kwargs)
    del out
    return func


def load(f, map_location=None, _extra_files=None, _restore_shapes=False, **kwargs):
    raise _refusal(NotImplementedError('torch.jit.load is not modelled by gpumemrepl: a TorchScript archive holds compiled code the '
                                       'tool cannot run; load the model\'s state dict with torch.load into its Python module'))
