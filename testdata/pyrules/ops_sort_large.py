# sort along a dimension longer than 4096 (CUB's radix sort: one
# segment, or several), argsort, and median over every element of long
# tensors: outputs and every temporary.
import torch

v = torch.rand(1 << 20, device='cuda')
o = v.sort()
o = v.sort(descending=True)
a = v.argsort()
del o, a
o = torch.rand(5000, device='cuda').sort()
o = torch.rand(100000, device='cuda').sort()
o = torch.rand(8, 8192, device='cuda').sort(1)
o = torch.rand(8192, 8, device='cuda').sort(0)
o = torch.rand(1 << 20, device='cuda', dtype=torch.float16).sort()
o = torch.randint(0, 1000, (1 << 20,), device='cuda').sort()
del o
m = torch.rand(100000, device='cuda').median()
m = torch.rand(1024, 1024, device='cuda').median()
m = torch.rand(512, 512, device='cuda', dtype=torch.float16).median()
del m
w = torch.rand(1 << 20, device='cuda', requires_grad=True)
m = w.median()
m.backward()
del m
w.grad = None
o = w.sort()
o.values.sum().backward()
