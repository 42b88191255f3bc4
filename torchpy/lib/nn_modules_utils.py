# torch.nn.modules.utils: the helpers layers use to read an int or a
# tuple as n values (embedded by nn_modules.go).
from itertools import repeat


def _ntuple(n, name='parse'):
    def parse(x):
        if isinstance(x, (list, tuple)):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, '_single')
_pair = _ntuple(2, '_pair')
_triple = _ntuple(3, '_triple')
_quadruple = _ntuple(4, '_quadruple')
