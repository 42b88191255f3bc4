# A bool mask beside ints, slices, None, ... and index tensors, on the
# GPU: PyTorch turns the mask into its nonzero's columns (a mask of k
# dims indexes k dims), then the key is a mixed advanced index. Reads
# with their shapes and strides, a 2-d mask after a slice, a mask and
# an index tensor together (side by side and apart), a host mask beside
# a slice, writes (a number, a tensor, a shape mismatch), backward.
# `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(64, 32, device='cuda')
m = torch.tensor([i % 3 == 0 for i in range(32)], device='cuda')
r = torch.tensor([i % 8 == 1 for i in range(64)], device='cuda')
idx = torch.tensor([1, 3, 5], device='cuda')
y = x[:, m]
print(tuple(y.shape), y.stride(), used())
del y
y = x[0, m]
print(tuple(y.shape), y.stride(), used())
del y
y = x[r, 1:3]
print(tuple(y.shape), y.stride(), used())
del y
y = x[1:5, m]
print(tuple(y.shape), y.stride(), used())
del y
y = x[..., m]
print(tuple(y.shape), y.stride(), used())
del y
y = x[r, 7]
print(tuple(y.shape), y.stride(), used())
del y
y = x[None, :, m]
print(tuple(y.shape), y.stride(), used())
del y
r3 = torch.tensor([i in (2, 4, 6) for i in range(64)], device='cuda')
y = x[r3, idx]
print(tuple(y.shape), y.stride(), used())
del y
x3 = torch.zeros(8, 16, 32, device='cuda')
m2 = torch.tensor([[(i + j) % 5 == 0 for j in range(32)] for i in range(16)], device='cuda')
y = x3[:, m2]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[..., m]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[2, :, m]
print(tuple(y.shape), y.stride(), used())
del y
r8 = torch.tensor([True, False, True, False, True, False, False, False], device='cuda')
y = x3[r8, :, idx]
print(tuple(y.shape), y.stride(), used())
del y
y = x3[r8, 1:4, idx]
print(tuple(y.shape), y.stride(), used())
del y
mh = m.cpu()
y = x[:, mh]
print(tuple(y.shape), y.stride(), used())
del y
x[:, m] = 1.0
x[0, m] = 2.0
x[:, m] = torch.ones(64, 11, device='cuda')
x[r, 1:3] = torch.ones(8, 2, device='cuda')
x[:, m] = torch.ones(64, 5, device='cuda')
x3[:, m2] = 3.0
x3[r8, :, idx] = torch.ones(3, 16, device='cuda')
x[:, mh] = 4.0
xg = torch.zeros(64, 32, device='cuda', requires_grad=True)
y = xg[:, m]
y.sum().backward()
del y
xg.grad = None
y = xg[r, 1:3]
y.sum().backward()
del y
xg.grad = None
y = xg[0, m]
y.backward(torch.ones_like(y))
del y
xg.grad = None
x3g = torch.zeros(8, 16, 32, device='cuda', requires_grad=True)
y = x3g[:, m2]
y.sum().backward()
del y
x3g.grad = None
y = x3g[r8, :, idx]
y.sum().backward()
del y
x3g.grad = None
c = torch.arange(12.0, device='cuda').reshape(3, 4)
print(c[:, torch.tensor([True, False, True, True], device='cuda')])
print(c[torch.tensor([False, True, True], device='cuda'), 1:3])
print(used())
