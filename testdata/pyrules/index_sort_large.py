# The backward of advanced indexing and of a bool mask past CUB's one-tile
# sort (2304 indices): index_put_ sorts the flattened indices with CUB's
# onesweep radix sort, whose scratch grows with the count and with the
# passes over the bits of (numel - 1) // slice (radix_sort_probe.txt).
# `--events`.
import torch

x = torch.rand(1 << 20, device='cuda', requires_grad=True)
idx = torch.randint(0, 1 << 20, (100000,), device='cuda')
y = x[idx]
y.sum().backward()
del y
x.grad = None
w = torch.rand(50000, 256, device='cuda', requires_grad=True)
ids = torch.randint(0, 50000, (8, 1024), device='cuda')
e = w[ids]
e.sum().backward()
print(w.grad.shape)
del e
w.grad = None
a = torch.rand(300, 8192, device='cuda', requires_grad=True)
cols = torch.randint(0, 8192, (3000,), device='cuda')
y = a[:, cols]
y.backward(torch.ones_like(y))
del y
a.grad = None
big = torch.rand((1 << 24) + 1, device='cuda', requires_grad=True)
y = big[torch.randint(0, 1 << 24, (5000000,), device='cuda')]
y.sum().backward()
del y, big
b = torch.rand(65536, 64, device='cuda', requires_grad=True)
m = torch.arange(65536, device='cuda') % 3 == 0
y = b[m]
y.sum().backward()
print(y.shape)
del y
b.grad = None
v = torch.rand(65536, device='cuda', requires_grad=True)
y = v[torch.arange(65536, device='cuda') < 60000]
y.sum().backward()
del y
v.grad = None
