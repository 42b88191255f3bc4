# Shape ops the census of model code uses: repeat and tile, repeat_interleave,
# unflatten, view_as, reshape_as, expand_as, movedim, swapaxes, broadcast_to,
# flip, roll, outer, hstack, concat, amax, cumprod, logsumexp, diag, trace
# (forward and backward, each alone so its peak shows), meshgrid, type_as,
# new_zeros/ones/full/empty/new_tensor and one_hot.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
v = torch.rand(1024, device='cuda', requires_grad=True)
w = torch.rand(768, device='cuda', requires_grad=True)
y = x.repeat(2, 1)
print(f"repeat: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat backward: {used()} {peak()}")
del y
x.grad = None
y = x.repeat(3, 1, 1)
print(f"repeat new dim: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat new dim backward: {used()} {peak()}")
del y
x.grad = None
y = x.repeat(1, 1)
print(f"repeat ones: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat ones backward: {used()} {peak()}")
del y
x.grad = None
y = x.tile((1, 2))
print(f"tile: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"tile backward: {used()} {peak()}")
del y
x.grad = None
y = x.repeat_interleave(2, dim=0)
print(f"repeat_interleave: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat_interleave backward: {used()} {peak()}")
del y
x.grad = None
y = x.repeat_interleave(3)
print(f"repeat_interleave flat: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat_interleave flat backward: {used()} {peak()}")
del y
x.grad = None
y = torch.repeat_interleave(x, 2, dim=1)
print(f"torch.repeat_interleave: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.repeat_interleave backward: {used()} {peak()}")
del y
x.grad = None
y = x.unflatten(1, (32, 32))
print(f"unflatten: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"unflatten backward: {used()} {peak()}")
del y
x.grad = None
y = x.view_as(torch.empty(1024, 512))
print(f"view_as: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"view_as backward: {used()} {peak()}")
del y
x.grad = None
y = x.t().reshape_as(torch.empty(1024, 512))
print(f"reshape_as: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"reshape_as backward: {used()} {peak()}")
del y
x.grad = None
y = v.expand_as(x)
print(f"expand_as: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"expand_as backward: {used()} {peak()}")
del y
v.grad = None
y = x.movedim(0, 1)
print(f"movedim: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"movedim backward: {used()} {peak()}")
del y
x.grad = None
y = x.swapaxes(0, 1)
print(f"swapaxes: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"swapaxes backward: {used()} {peak()}")
del y
x.grad = None
y = torch.broadcast_to(v, (512, 1024))
print(f"broadcast_to: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"broadcast_to backward: {used()} {peak()}")
del y
v.grad = None
y = x.flip(0)
print(f"flip: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"flip backward: {used()} {peak()}")
del y
x.grad = None
y = torch.flip(x, [0, 1])
print(f"torch.flip: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.flip backward: {used()} {peak()}")
del y
x.grad = None
y = x.roll(3, 1)
print(f"roll: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"roll backward: {used()} {peak()}")
del y
x.grad = None
y = torch.roll(x, (1, 2), (0, 1))
print(f"torch.roll: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"torch.roll backward: {used()} {peak()}")
del y
x.grad = None
y = torch.outer(v, w)
print(f"outer: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"outer backward: {used()} {peak()}")
del y
v.grad = None
w.grad = None
y = torch.hstack([v, w])
print(f"hstack: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"hstack backward: {used()} {peak()}")
del y
v.grad = None
w.grad = None
y = torch.concat([x, x], dim=1)
print(f"concat: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"concat backward: {used()} {peak()}")
del y
x.grad = None
y = x.amax(dim=-1)
print(f"amax: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"amax backward: {used()} {peak()}")
del y
x.grad = None
y = x.amax(1, keepdim=True)
print(f"amax keepdim: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"amax keepdim backward: {used()} {peak()}")
del y
x.grad = None
y = torch.cumprod(x, dim=1)
print(f"cumprod: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"cumprod backward: {used()} {peak()}")
del y
x.grad = None
y = x.logsumexp(-1)
print(f"logsumexp: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"logsumexp backward: {used()} {peak()}")
del y
x.grad = None
y = torch.diag(v)
print(f"diag: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"diag backward: {used()} {peak()}")
del y
v.grad = None
y = x[:, :512].trace()
print(f"trace: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"trace backward: {used()} {peak()}")
del y
x.grad = None
m = torch.meshgrid(v, w, indexing='ij')
print(f"meshgrid: {used()} {m[0].shape} {m[0].stride()} {m[1].stride()}")
g = torch.stack(m, dim=-1)
print(f"meshgrid stacked: {used()}")
del m, g
m = torch.meshgrid(v, w, indexing='xy')
print(f"meshgrid xy: {used()} {m[0].shape} {m[0].stride()}")
del m
h = torch.rand(512, 1024, device='cuda', dtype=torch.float16)
y = x.type_as(h)
print(f"type_as: {used()} {y.dtype} {y.grad_fn.name()}")
del y
y = x.type_as(x)
print(f"type_as same: {used()} {y is x}")
del y
z = x.new_zeros((256, 1024))
print(f"new_zeros: {used()} {z.dtype} {z.device} {z.requires_grad}")
z1 = x.new_ones(256, 512)
print(f"new_ones: {used()} {z1.shape}")
z2 = x.new_full((128, 1024), 3.0)
print(f"new_full: {used()}")
z3 = x.new_empty((64, 1024), dtype=torch.int64)
print(f"new_empty: {used()} {z3.dtype}")
z4 = h.new_zeros(1000)
print(f"new_zeros half: {used()} {z4.dtype}")
z5 = x.new_tensor([1.0, 2.0])
print(f"new_tensor: {used()} {z5.device}")
del z, z1, z2, z3, z4, z5, h
idx = torch.tensor([3, 0, 7, 2], device='cuda')
o = torch.nn.functional.one_hot(idx, 10)
print(f"one_hot: {used()} {o.dtype} {o.shape}")
del o
o = torch.nn.functional.one_hot(idx)
print(f"one_hot inferred: {used()} {o.shape}")
del o, idx
with torch.no_grad():
    r = x.repeat(2, 2)
    f = x.flip(1)
print(f"no_grad: {used()}")
del r, f, x, v, w
print(f"end: {used()}")
