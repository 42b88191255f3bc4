# More reads of a CUDA tensor through host indices: two host indices and
# a host index beside a GPU one, with their backward; a 2-d bool mask on
# the host; assignment through a host bool mask (a number, a tensor).
# `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
xg = torch.zeros(1024, 1024, device='cuda', requires_grad=True)
i = torch.tensor([0, 5, 9, 5, 3, 3, 1, 2])
j = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
jd = j.cuda()
y = xg[i[:4], j[:4]]
print(tuple(y.shape), used())
y.sum().backward()
del y
xg.grad = None
y = xg[j, jd]
print(tuple(y.shape), used())
y.sum().backward()
del y
xg.grad = None
y = xg[jd, j]
y.sum().backward()
del y
xg.grad = None
x = torch.zeros(64, 32, device='cuda')
m2 = torch.tensor([[True, False] * 16] * 64)
y = x[m2]
print(tuple(y.shape), used())
del y
m = torch.tensor([True, False, False, True] * 16)
x[m] = 1.0
print(used())
x[m] = torch.ones(32, 32, device='cuda')
print(used())
x[m] = torch.ones(32, device='cuda')
print(used(), x.sum().item())
