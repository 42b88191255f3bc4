# torch.fx as eager PyTorch sees it: wrap marks a function to stay a leaf
# when FX traces; eager code never traces, so it is the function itself.
# FX's own classes exist, so that model code's checks (isinstance(x,
# torch.fx.Proxy): never, in eager code) run as in PyTorch; making one
# (symbolic tracing, graph surgery) is refused.
from typing import Any, Callable, Union


def wrap(fn_or_name):
    return fn_or_name


def _copy_attr(from_module, to_module, target):
    # torch.fx.graph_module's helper (torchvision's feature extraction
    # calls it): the attribute at the dotted path target, from one module
    # to the same path in another, making the modules on the way that
    # to_module lacks; a plain tensor (not a Parameter: its type is
    # torch.Tensor itself) goes in as a buffer. It copies references: no
    # memory
    import torch
    *path, name = target.split('.')
    for step in path:
        src = getattr(from_module, step)
        dst = getattr(to_module, step, None)
        if src is dst:
            return
        if dst is None:
            dst = torch.nn.Module()
            setattr(to_module, step, dst)
        from_module, to_module = src, dst
    value = getattr(from_module, name)
    if type(value) is torch.Tensor:
        to_module.register_buffer(name, value)
    else:
        setattr(to_module, name, value)


class _Refused:
    def __init__(self, *args, **kwargs):
        raise _refusal(NotImplementedError(f'torch.fx.{type(self).__name__} is not modelled by gpumemrepl: FX traces a program '
                                           'symbolically and rewrites its graph; eager code runs without it'))


class Graph(_Refused):
    pass


class GraphModule(_Refused):
    pass


class Node(_Refused):
    pass


class Proxy(_Refused):
    pass


class Tracer(_Refused):
    pass


Target = Union[Callable[..., Any], str]
