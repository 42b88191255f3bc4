# Index tensors of different shapes that broadcast together, on the GPU:
# a read where one index already has the broadcast shape, a read through
# a host index beside a GPU one, their backward, assignment through them
# (a number, a tensor), a 2-d host mask's backward, and a value that does
# not fit a bool mask's count (GPU and host masks). `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(64, 32, device='cuda')
rows = torch.tensor([[0], [3], [5]], device='cuda')
cols = torch.tensor([1, 2, 4, 8], device='cuda')
full = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], device='cuda')
y = x[full, cols]
print(tuple(y.shape), used())
del y
y = x[rows, full]
del y
hrows = torch.tensor([[0], [3], [5]])
y = x[hrows, cols]
print(tuple(y.shape), used())
del y
y = x[rows, torch.tensor([1, 2, 4, 8])]
del y
x[rows, cols] = 1.0
x[rows, cols] = torch.ones(3, 4, device='cuda')
x[rows, cols] = torch.ones(4, device='cuda')
x[full, cols] = 2.0
x[hrows, cols] = 3.0
xg = torch.zeros(64, 32, device='cuda', requires_grad=True)
y = xg[rows, cols]
y.sum().backward()
del y
xg.grad = None
y = xg[full, cols]
y.sum().backward()
del y
xg.grad = None
m2 = torch.tensor([[True, False] * 16] * 64)
y = xg[m2]
print(tuple(y.shape), used())
y.sum().backward()
del y
xg.grad = None
md = torch.tensor([True, False] * 32, device='cuda')
x[md] = torch.ones(5, 32, device='cuda')
mh = torch.tensor([True, False] * 32)
x[mh] = torch.ones(5, 32, device='cuda')
x[md] = torch.ones(1, 32, device='cuda')
print(used())
