# What a YOLO-style detector runs that the tool had not recorded:
# F.silu(inplace=True) / nn.SiLU(inplace=True) after a conv and a
# BatchNorm (silu_: under autograd the input's clone saved), forward
# and backward, under no_grad; and a 0-d host tensor beside a CUDA one in
# elementwise ops (anchors * self.stride[i]: a scalar to the kernel).
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
block = nn.Sequential(nn.Conv2d(16, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.SiLU(inplace=True)).cuda()
x = torch.randn(4, 16, 40, 40, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = block(x)
print(f"silu_ block: {used()} {peak()} {y.grad_fn.name()}")
y.sum().backward()
print(f"silu_ backward: {used()} {peak()}")
del y
h = torch.randn(3, 1000, device='cuda', requires_grad=True) * 2
torch.cuda.reset_peak_memory_stats()
F.silu(h, inplace=True)
print(f"silu_ of a non-leaf: {used()} {peak()} {h.grad_fn.name()}")
h.sum().backward()
del h
with torch.no_grad():
    z = torch.randn(5, 777, device='cuda')
    torch.cuda.reset_peak_memory_stats()
    F.silu(z, inplace=True)
    print(f"silu_ no_grad: {used()} {peak()}")
del z
anchors = torch.randn(3, 3, 2, device='cuda')
stride = torch.tensor([8., 16., 32.])
torch.cuda.reset_peak_memory_stats()
a = anchors[1] * stride[1]
b = stride[2] + anchors
c = anchors.view(-1) > stride[0]
print(f"host scalars: {used()} {peak()} {a.device} {b.device} {c.dtype}")
try:
    anchors + stride
except RuntimeError as e:
    print(str(e)[:60])
