# torch.fx as eager PyTorch sees it: wrap marks a function to stay a leaf
# when FX traces; eager code never traces, so it is the function itself.
# FX's own classes exist, so that model code's checks (isinstance(x,
# torch.fx.Proxy): never, in eager code) run as in PyTorch; making one
# (symbolic tracing, graph surgery) is refused.
from typing import Any, Callable, Union


def wrap(fn_or_name):
    return fn_or_name


class _Refused:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f'torch.fx.{type(self).__name__} is not modelled by gpumemrepl: FX traces a program '
                                  'symbolically and rewrites its graph; eager code runs without it')


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
