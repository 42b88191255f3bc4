# Recorded for later: the backward of a CUDA tensor indexed by a bool mask
# on the host. `--events`.
import torch

xg = torch.zeros(1024, 1024, device='cuda', requires_grad=True)
m = torch.tensor([True, False, False] * 341 + [True])
y = xg[m]
y.sum().backward()
del y
print(torch.cuda.memory_allocated())
