# One-input math the census of model code uses (sin, cos, rsqrt, erf,
# atan, log2, log10, expm1, sign, absolute, clip, clamp_min; isinf, isnan,
# isfinite), forward and backward, each statement alone so its peak shows:
# what autograd saves and the temporaries backward makes before the gradient.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(1 << 20, device='cuda', requires_grad=True)
y = x.sin()
print(f"sin: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sin backward: {used()} {peak()}")
del y
x.grad = None
y = x.cos()
print(f"cos: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"cos backward: {used()} {peak()}")
del y
x.grad = None
y = x.rsqrt()
print(f"rsqrt: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"rsqrt backward: {used()} {peak()}")
del y
x.grad = None
y = x.erf()
print(f"erf: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"erf backward: {used()} {peak()}")
del y
x.grad = None
y = x.atan()
print(f"atan: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"atan backward: {used()} {peak()}")
del y
x.grad = None
y = x.log2()
print(f"log2: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"log2 backward: {used()} {peak()}")
del y
x.grad = None
y = x.log10()
print(f"log10: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"log10 backward: {used()} {peak()}")
del y
x.grad = None
y = x.expm1()
print(f"expm1: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"expm1 backward: {used()} {peak()}")
del y
x.grad = None
y = x.sign()
print(f"sign: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sign backward: {used()} {peak()}")
del y
x.grad = None
y = x.absolute()
print(f"absolute: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"absolute backward: {used()} {peak()}")
del y
x.grad = None
y = torch.sin(x)
print(f"torch.sin: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.sin backward: {used()} {peak()}")
del y
x.grad = None
y = torch.cos(x)
print(f"torch.cos: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.cos backward: {used()} {peak()}")
del y
x.grad = None
y = torch.rsqrt(x)
print(f"torch.rsqrt: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.rsqrt backward: {used()} {peak()}")
del y
x.grad = None
y = (x * 2).sin_()
print(f"sin_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sin_ backward: {used()} {peak()}")
del y
x.grad = None
y = (x * 2).rsqrt_()
print(f"rsqrt_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"rsqrt_ backward: {used()} {peak()}")
del y
x.grad = None
y = x.clip(0.25, 0.75)
print(f"clip: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"clip backward: {used()} {peak()}")
del y
x.grad = None
y = torch.clip(x, min=0.5)
print(f"torch.clip: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.clip backward: {used()} {peak()}")
del y
x.grad = None
y = x.clamp_min(0.5)
print(f"clamp_min: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"clamp_min backward: {used()} {peak()}")
del y
x.grad = None
y = torch.isinf(x)
print(f"torch.isinf: {used()} {y.shape} {y.dtype}")
del y
y = torch.isnan(x)
print(f"torch.isnan: {used()} {y.shape} {y.dtype}")
del y
y = torch.isfinite(x)
print(f"torch.isfinite: {used()} {y.shape} {y.dtype}")
del y
with torch.no_grad():
    a = x.sin()
    c = torch.rsqrt(x)
print(f"no_grad: {used()}")
del a, c
h = torch.rand(1000, 999, device='cuda', dtype=torch.float16, requires_grad=True)
y = h.cos()
print(f"cos of float16: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"cos of float16 backward: {used()} {peak()}")
del y
h.grad = None
del h, x
print(f"end: {used()}")
