# Ops published experiments reach for next: arange (int64 for ints,
# float32 for floats) and cat along either dimension, with its backward
# (each input's gradient a slice of the incoming one: a leaf's first
# .grad is a copy, the slice of a broadcast gradient not being dense).
import torch

a = torch.arange(1000, device="cuda")
f = torch.arange(0.0, 1.0, 0.001, device="cuda")
print(a.dtype, a.shape, f.dtype, f.shape, a.nbytes, f.nbytes)
x = torch.randn(256, 1024, device="cuda", requires_grad=True)
y = torch.randn(256, 1024, device="cuda", requires_grad=True)
c0 = torch.cat([x, y])
c1 = torch.cat([x, y], dim=1)
print(c0.shape, c1.shape)
torch.cuda.reset_peak_memory_stats()
c0.sum().backward()
torch.cuda.reset_peak_memory_stats()
c1.sum().backward()
del c0, c1
x.grad = y.grad = None
