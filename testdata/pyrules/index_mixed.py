# Advanced indices beside ints, partial slices, None and ...: PyTorch
# applies the basic items first (views), then indexes the view; ints
# between index tensors vanish, so those stay side by side. Reads,
# their strides, assignment (and its shape errors), backward, and an
# index out of range on the host; indices separated by a slice (moved
# to the front), a host index and a list beside a slice or an int,
# a 3-d leaf's backward. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(64, 32, device='cuda')
idx = torch.tensor([1, 3, 5], device='cuda')
y = x[0, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x[2:10, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x[idx, 2:10]
print(tuple(y.shape), y.stride(), used())
del y
y = x[::2, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x[idx, 5]
print(tuple(y.shape), y.stride(), used())
del y
x3 = torch.zeros(8, 16, 32, device='cuda')
y = x3[idx, 0, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[None, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[..., idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[1, ..., [0, 2]]
print(tuple(y.shape), y.stride(), used())
del y
x[0, idx] = 1.0
x[2:10, idx] = torch.ones(8, 3, device='cuda')
x[2:10, idx] = torch.ones(3, 8, device='cuda')
x[0, idx] = torch.ones(4, device='cuda')
x3[..., idx] = torch.ones(16, 3, device='cuda')
xg = torch.zeros(64, 32, device='cuda', requires_grad=True)
y = xg[0, idx]
y.sum().backward()
del y
xg.grad = None
y = xg[2:10, idx]
y.sum().backward()
del y
xg.grad = None
y = xg[idx, 2:10]
y.sum().backward()
del y
xg.grad = None
y = xg[::2, idx]
y.backward(torch.ones_like(y))
del y
xg.grad = None
y = x3[idx, :, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[idx, 2:6, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[:, idx, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[idx, idx, 4:8]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[0, :, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[:, 1:5, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[idx, None, idx]
print(tuple(y.shape), y.stride(), used())
del y
ih = torch.tensor([0, 2])
y = x[2:10, ih]
print(tuple(y.shape), y.stride(), used())
del y
y = x[[1, 3], 2:10]
print(tuple(y.shape), y.stride(), used())
del y
x3[idx, :, idx] = torch.ones(3, 16, device='cuda')
x3[idx, :, idx] = torch.ones(16, 3, device='cuda')
x3[idx, 2:6, idx] = 3.0
x[1, [0, 2]] = 5.0
x[2:10, ih] = 1.0
x3g = torch.zeros(8, 16, 32, device='cuda', requires_grad=True)
y = x3g[idx, :, idx]
y.sum().backward()
del y
x3g.grad = None
y = x3g[0, :, idx]
y.sum().backward()
del y
x3g.grad = None
y = x3g[..., idx]
y.sum().backward()
del y
x3g.grad = None
c = torch.zeros(3, 4)
y = c[0, [5]]
y = c[1:, [2, 4]]
y = c[1, [0], 2]
print(used())
