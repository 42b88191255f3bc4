# torch.compile and torch.compiler, run eagerly. PyTorch compiles the
# model with TorchDynamo and Inductor; the tool runs the same Python
# eagerly, so its figures are eager PyTorch's, an estimate for compiled
# code (compile_note says how that differs, once a run).


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def disable(fn=None, recursive=True, reason=None):
    if fn is None:
        def decorator(f):
            return f
        return decorator
    return fn


def allow_in_graph(fn):
    return fn


def reset():
    pass


def cudagraph_mark_step_begin():
    pass


_optimized_module = None


def _optimized_module_class():
    # nn.Module exists once torch has been made, not while this file runs
    global _optimized_module
    if _optimized_module is None:
        import torch

        class OptimizedModule(torch.nn.Module):
            def __init__(self, mod):
                super().__init__()
                self._orig_mod = mod

            def forward(self, *args, **kwargs):
                return self._orig_mod(*args, **kwargs)

        _optimized_module = OptimizedModule
    return _optimized_module


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False):
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)
        return decorator
    if not callable(model):
        raise RuntimeError("Invalid type for model: %s" % type(model))
    if disable:
        return model
    _compile_note()
    import torch
    if isinstance(model, torch.nn.Module):
        return _optimized_module_class()(model)
    import functools

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled
