# Layers the census of model code uses that the tool did not model:
# ConvTranspose2d (a UNet's upsampling), InstanceNorm2d, BatchNorm3d,
# MaxPool3d, AvgPool3d, AvgPool1d, PixelShuffle, each trained (forward,
# backward alone so its peak shows) and run in eval under no_grad and
# inference_mode; the transposed convolution under bf16 autocast and
# checkpointed too.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(8, 64, 32, 32, device='cuda', requires_grad=True)
up = nn.ConvTranspose2d(64, 32, 2, stride=2).cuda()
print(f"ConvTranspose2d: {used()}")
y = up(x)
print(f"ConvTranspose2d forward: {used()} {y.shape} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"ConvTranspose2d backward: {used()} {peak()}")
del y
x.grad = None
up.zero_grad(set_to_none=True)
up3 = nn.ConvTranspose2d(64, 64, 3, stride=2, padding=1, output_padding=1).cuda()
y = up3(x)
print(f"ConvTranspose2d k3: {used()} {y.shape}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"ConvTranspose2d k3 backward: {used()} {peak()}")
del y
x.grad = None
up3.zero_grad(set_to_none=True)
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = up(x)
    print(f"ConvTranspose2d autocast: {used()} {y.dtype}")
y.sum().backward()
print(f"ConvTranspose2d autocast backward: {used()}")
del y
x.grad = None
up.zero_grad(set_to_none=True)
y = checkpoint(up, x, use_reentrant=False)
print(f"ConvTranspose2d checkpoint: {used()}")
y.sum().backward()
print(f"ConvTranspose2d checkpoint backward: {used()}")
del y
x.grad = None
up.zero_grad(set_to_none=True)
with torch.no_grad():
    y = up(x)
print(f"ConvTranspose2d no_grad: {used()}")
del y
with torch.inference_mode():
    y = up3(x)
print(f"ConvTranspose2d inference_mode: {used()}")
del y, up, up3
inorm = nn.InstanceNorm2d(64).cuda()
y = inorm(x)
print(f"InstanceNorm2d: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"InstanceNorm2d backward: {used()} {peak()}")
del y
x.grad = None
inorm_a = nn.InstanceNorm2d(64, affine=True).cuda()
y = inorm_a(x)
print(f"InstanceNorm2d affine: {used()}")
y.sum().backward()
print(f"InstanceNorm2d affine backward: {used()}")
del y
x.grad = None
with torch.no_grad():
    y = inorm_a(x)
print(f"InstanceNorm2d no_grad: {used()}")
del y, inorm, inorm_a
ps = nn.PixelShuffle(2)
y = ps(x)
print(f"PixelShuffle: {used()} {y.shape}")
y.sum().backward()
print(f"PixelShuffle backward: {used()}")
del y
x.grad = None
v = torch.randn(4, 16, 8, 32, 32, device='cuda', requires_grad=True)
bn3 = nn.BatchNorm3d(16).cuda()
y = bn3(v)
print(f"BatchNorm3d: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"BatchNorm3d backward: {used()} {peak()}")
del y
v.grad = None
bn3.eval()
with torch.no_grad():
    y = bn3(v)
print(f"BatchNorm3d eval: {used()}")
del y
mp3 = nn.MaxPool3d(2)
y = mp3(v)
print(f"MaxPool3d: {used()} {y.shape}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"MaxPool3d backward: {used()} {peak()}")
del y
v.grad = None
ap3 = nn.AvgPool3d(2)
y = ap3(v)
print(f"AvgPool3d: {used()} {y.shape}")
y.sum().backward()
print(f"AvgPool3d backward: {used()}")
del y, v, bn3
s = torch.randn(4, 16, 1000, device='cuda', requires_grad=True)
ap1 = nn.AvgPool1d(4)
y = ap1(s)
print(f"AvgPool1d: {used()} {y.shape}")
y.sum().backward()
print(f"AvgPool1d backward: {used()}")
del y, s, x
print(f"end: {used()}")
