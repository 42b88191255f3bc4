# MaxPool2d, AvgPool2d and AdaptiveAvgPool2d as modules and functions on
# the GPU, forward and backward: max pooling's int64 indices (saved for
# backward, freed at once without grad), its backward's zeros gradient;
# avg pooling's output; adaptive pooling to 1 (a mean over the last two
# dimensions) and to other sizes; bfloat16 once. Recorded with --events.
import torch
from torch import nn
import torch.nn.functional as F

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


x = torch.randn(64, 32, 32, 32, device='cuda', requires_grad=True)
pool = nn.MaxPool2d(2)
print(pool)
torch.cuda.reset_peak_memory_stats()
y = pool(x)
show("maxpool forward")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("maxpool backward")
del y
x.grad = None
p3 = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
y = p3(x)
show("maxpool 3/2/1 forward")
print(tuple(y.shape))
y.sum().backward()
show("maxpool 3/2/1 backward")
del y
x.grad = None
with torch.no_grad():
    y = pool(x)
show("maxpool no_grad")
del y
u = torch.randn(8, 16, 45, 33, device='cuda')
y = F.max_pool2d(u, 3)
show("F.max_pool2d no grad")
print(tuple(y.shape))
del y
y, idx = F.max_pool2d(x, 2, return_indices=True)
show("return_indices")
print(idx.dtype, tuple(idx.shape))
y.sum().backward()
show("return_indices backward")
del y, idx
x.grad = None
y = F.max_pool2d(x, (2, 4), stride=(1, 2))
show("F.max_pool2d (2,4)")
y.sum().backward()
show("F.max_pool2d (2,4) backward")
del y
x.grad = None
avg = nn.AvgPool2d(2)
print(avg)
y = avg(x)
show("avgpool forward")
y.sum().backward()
show("avgpool backward")
del y
x.grad = None
y = F.avg_pool2d(x, 3, stride=2, padding=1)
show("F.avg_pool2d 3/2/1")
y.sum().backward()
show("F.avg_pool2d backward")
del y
x.grad = None
y = F.avg_pool2d(u, 2)
show("F.avg_pool2d no grad")
del y
gap = nn.AdaptiveAvgPool2d(1)
print(gap)
z = torch.randn(64, 256, 8, 8, device='cuda', requires_grad=True)
y = gap(z)
show("adaptive 1 forward")
print(tuple(y.shape))
y.sum().backward()
show("adaptive 1 backward")
del y
z.grad = None
y = gap(x)
show("adaptive 1 of 32x32")
y.sum().backward()
show("adaptive 1 32x32 backward")
del y
x.grad = None
y = F.adaptive_avg_pool2d(x, (5, 7))
show("adaptive (5, 7)")
y.sum().backward()
show("adaptive (5, 7) backward")
del y
x.grad = None
y = nn.AdaptiveAvgPool2d((16, 16))(x)
show("adaptive (16, 16)")
y.sum().backward()
show("adaptive (16, 16) backward")
del y
x.grad = None
y = F.adaptive_avg_pool2d(u, 1)
show("F.adaptive 1 no grad")
del y
xb = torch.randn(64, 32, 32, 32, device='cuda', dtype=torch.bfloat16, requires_grad=True)
y = pool(xb)
show("bf16 maxpool")
y.sum().backward()
show("bf16 maxpool backward")
del y
xb.grad = None
y = avg(xb)
show("bf16 avgpool")
y.sum().backward()
show("bf16 avgpool backward")
del y
xb.grad = None
y = gap(xb)
show("bf16 adaptive 1")
y.sum().backward()
show("bf16 adaptive 1 backward")
del y
del x, xb, z, u
show("all freed")
