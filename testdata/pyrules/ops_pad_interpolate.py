# F.pad (constant, a value, negative, reflect, replicate, circular) and
# F.interpolate (nearest, nearest-exact, bilinear with and without
# align_corners, bicubic, down by 0.5, 1-d linear), nn.Upsample and
# F.normalize, forward and backward, each alone so its peak shows; under
# no_grad and bf16 autocast.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
import torch.nn.functional as F
x = torch.rand(8, 64, 32, 32, device='cuda', requires_grad=True)
y = F.pad(x, (1, 1, 1, 1))
print(f"pad constant: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad constant backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (0, 3), value=-1.0)
print(f"pad value: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad value backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (2, 2))
print(f"pad last only: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad last only backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (-1, -1, 0, 0))
print(f"pad negative: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad negative backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (2, 2, 2, 2), mode='reflect')
print(f"pad reflect: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad reflect backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (1, 2, 3, 4), mode='replicate')
print(f"pad replicate: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad replicate backward: {used()} {peak()}")
del y
x.grad = None
y = F.pad(x, (1, 1, 1, 1), mode='circular')
print(f"pad circular: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad circular backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, scale_factor=2, mode='nearest')
print(f"nearest x2: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"nearest x2 backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, size=(48, 40))
print(f"nearest size: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"nearest size backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
print(f"bilinear: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"bilinear backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, size=(64, 64), mode='bilinear', align_corners=True)
print(f"bilinear aligned: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"bilinear aligned backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, scale_factor=2, mode='bicubic', align_corners=False)
print(f"bicubic: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"bicubic backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, scale_factor=0.5, mode='nearest')
print(f"downsample nearest: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"downsample nearest backward: {used()} {peak()}")
del y
x.grad = None
y = F.interpolate(x, scale_factor=2, mode='nearest-exact')
print(f"nearest-exact: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"nearest-exact backward: {used()} {peak()}")
del y
x.grad = None
y = F.normalize(x, dim=1)
print(f"normalize: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"normalize backward: {used()} {peak()}")
del y
x.grad = None
y = F.normalize(x, p=1.0, dim=-1)
print(f"normalize p1: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"normalize p1 backward: {used()} {peak()}")
del y
x.grad = None
s = torch.rand(4, 16, 1000, device='cuda', requires_grad=True)
y = F.interpolate(s, scale_factor=2, mode='linear')
print(f"interpolate 1d linear: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"interpolate 1d linear backward: {used()} {peak()}")
del y
s.grad = None
y = F.interpolate(s, size=1500)
print(f"interpolate 1d nearest: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"interpolate 1d nearest backward: {used()} {peak()}")
del y
s.grad = None
y = F.pad(s, (3, 3), mode='reflect')
print(f"pad 1d reflect: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pad 1d reflect backward: {used()} {peak()}")
del y
s.grad = None
up = torch.nn.Upsample(scale_factor=2, mode='nearest')
y = up(x)
print(f"Upsample: {used()} {y.shape}")
del y
with torch.no_grad():
    y = F.interpolate(x, scale_factor=2, mode='bilinear')
    z = F.pad(x, (1, 1, 1, 1))
print(f"no_grad: {used()}")
del y, z
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = F.interpolate(x, scale_factor=2, mode='bilinear')
    print(f"autocast interpolate: {used()} {y.dtype}")
    z = F.pad(x, (1, 1, 1, 1))
    print(f"autocast pad: {used()} {z.dtype}")
del y, z, x, s, up
print(f"end: {used()}")
