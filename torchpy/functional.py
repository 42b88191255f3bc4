# torch functions that PyTorch composes of other ops (its
# CompositeImplicitAutograd kernels and torch/functional.py), composed
# of the same ops here, so their memory is those ops' recorded rules.
import warnings


def meshgrid(*tensors, indexing=None):
    import torch
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.")
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s" % indexing)
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.view(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def outer(input, vec2):
    return input.reshape(input.size(0), 1) * vec2


ger = outer


def hstack(tensors):
    import torch
    ts = [t.reshape(1) if t.dim() == 0 else t for t in tensors]
    return torch.cat(ts, 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    import torch
    ts = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    return torch.cat(ts, 0)


def _shape_as_tensor(input):
    # PyTorch's: the shape as an int64 host tensor (torchvision's
    # detection code, for tracing)
    import torch
    return torch.tensor(list(input.shape), dtype=torch.int64)
