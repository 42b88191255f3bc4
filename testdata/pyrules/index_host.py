# Reading a CUDA tensor through an index tensor on the host: PyTorch
# copies the index to the GPU and indexes there. A long index and a
# bool mask (its nonzero taken on the host, the int64 positions copied),
# along dimension 0, along dimension 1, two host indices, and under
# autograd (what IndexBackward0 keeps, and its backward). `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.zeros(1024, 1024, device='cuda')
i = torch.tensor([0, 5, 9, 5])
i2 = torch.arange(0, 1024, 2)
m = torch.tensor([True, False, False] * 341 + [True])
torch.cuda.reset_peak_memory_stats()
y = x[i]
print(tuple(y.shape), used(), peak())
del y
torch.cuda.reset_peak_memory_stats()
y = x[i2]
print(tuple(y.shape), used(), peak())
del y
torch.cuda.reset_peak_memory_stats()
y = x[m]
print(tuple(y.shape), used(), peak())
del y
y = x[:, i2]
print(tuple(y.shape), y.stride(), used())
del y
y = x[i2, i2]
print(tuple(y.shape), used())
del y
print(x[i].sum().item(), x[[1, 2]].shape)
xg = torch.zeros(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = xg[i2]
print(y.grad_fn.name(), used(), peak())
y.sum().backward()
print(used(), peak())
del y
xg.grad = None
y = xg[i]
y.backward(torch.ones_like(y))
del y
xg.grad = None
y = xg[:, i2]
y.sum().backward()
del y
xg.grad = None
y = xg[m]
print(y.grad_fn.name(), tuple(y.shape), used())
del y
print(used())
