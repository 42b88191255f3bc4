# Advanced indexing beside ints, slices, None and ...: each read's shape,
# strides and autograd chain (the basic items' view nodes under
# IndexBackward0). Run on the H200: testdata/pyrules/index_mixed_nodes.txt.
import torch
idx = torch.tensor([1, 3, 5], device='cuda')
xg = torch.zeros(64, 32, device='cuda', requires_grad=True)
x3g = torch.zeros(8, 16, 32, device='cuda', requires_grad=True)
def chain(y):
    out, f = [], y.grad_fn
    while f is not None:
        out.append(type(f).__name__)
        nx = [n for n, _ in f.next_functions if n is not None]
        f = nx[0] if nx else None
    return out
for name, y in [("xg[0, idx]", xg[0, idx]), ("xg[2:10, idx]", xg[2:10, idx]), ("xg[idx, 2:10]", xg[idx, 2:10]),
                ("xg[::2, idx]", xg[::2, idx]), ("xg[idx, 5]", xg[idx, 5]), ("x3g[idx, :, idx]", x3g[idx, :, idx]),
                ("x3g[idx, 0, idx]", x3g[idx, 0, idx]), ("x3g[None, idx]", x3g[None, idx]), ("x3g[..., idx]", x3g[..., idx]),
                ("x3g[0, :, idx]", x3g[0, :, idx]), ("x3g[1, ..., [0, 2]]", x3g[1, ..., [0, 2]])]:
    print(name, tuple(y.shape), y.stride(), y.is_contiguous(), chain(y))
