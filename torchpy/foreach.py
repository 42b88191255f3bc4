# torch._foreach_*: PyTorch's fused ops over lists of tensors (the
# optimizers' foreach path, and model code's EMA updates). In place, the
# fused kernel writes each tensor where it is and allocates nothing, as
# each tensor's own in-place op does here; out of place, it makes one
# result per tensor, in order, before it runs (labelled estimated: not yet
# recorded on the GPU).


def _pairs(self, other):
    # each tensor of self with its operand: a list of tensors or numbers of
    # the same length, or one number or tensor for all
    if isinstance(other, (list, tuple)):
        if len(other) != len(self):
            raise RuntimeError(f'Tensor lists must have the same number of tensors, got {len(self)} and {len(other)}')
        return list(zip(self, other))
    return [(t, other) for t in self]


def _foreach_add_(self, other, *, alpha=1):
    for t, o in _pairs(self, other):
        t.add_(o, alpha=alpha)


def _foreach_sub_(self, other, *, alpha=1):
    for t, o in _pairs(self, other):
        t.sub_(o, alpha=alpha)


def _foreach_mul_(self, other):
    for t, o in _pairs(self, other):
        t.mul_(o)


def _foreach_copy_(self, src, non_blocking=False):
    for t, o in _pairs(self, src):
        t.copy_(o, non_blocking=non_blocking)


def _foreach_lerp_(self, tensors1, weight):
    for (t, e), w in zip(_pairs(self, tensors1), weight if isinstance(weight, (list, tuple)) else [weight] * len(self)):
        t.lerp_(e, w)


def _foreach_sub(self, other, *, alpha=1):
    import torch
    pairs = _pairs(self, other)
    torch.nn._estimate('torch._foreach_sub', "one result per tensor, made in order before the fused kernel runs, "
                       "recorded on the GPU in testdata/pyrules/census_eager_nn.py but not yet held to it", *self)
    return [t.sub(o, alpha=alpha) for t, o in pairs]
