# Tensor / tensor and number / tensor (Tensor.__rtruediv__ is
# reciprocal() * number), their dtypes and their backward; max and min
# along a dimension as a namedtuple.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
a = torch.rand(1024, 1024, device='cuda')
b = torch.rand(1024, 1024, device='cuda') + 1
c = torch.rand(1024, 1, device='cuda') + 1
torch.cuda.reset_peak_memory_stats()
q = a / b
print(f"a / b: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
q2 = a / c
print(f"a / c: {used()} {peak()} {tuple(q2.shape)}")
torch.cuda.reset_peak_memory_stats()
r = 2 / b
print(f"2 / b: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
r2 = torch.div(a, b)
print(f"torch.div: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
r3 = a.div(c)
print(f"a.div(c): {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
a /= b
print(f"a /= b: {used()} {peak()}")
del q, q2, r, r2, r3
i = torch.arange(1024 * 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
j = i / i
print(f"int / int: {used()} {peak()} {j.dtype}")
torch.cuda.reset_peak_memory_stats()
k = 3 / i
print(f"3 / int: {used()} {peak()} {k.dtype}")
torch.cuda.reset_peak_memory_stats()
l = i / b.view(-1)
print(f"int / float: {used()} {peak()} {l.dtype}")
torch.cuda.reset_peak_memory_stats()
hf = b.half() / c
print(f"half / float: {used()} {peak()} {hf.dtype}")
del i, j, k, l, hf
x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
y = torch.rand(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
z = x / y
print(f"x / y: {used()} {peak()} {z.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"x / y backward: {used()} {peak()}")
del z
x.grad = None
y.grad = None
z = x / c
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"x / c backward: {used()} {peak()}")
del z
x.grad = None
z = b / y
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"b / y backward: {used()} {peak()}")
del z
y.grad = None
torch.cuda.reset_peak_memory_stats()
z = 1 / x
print(f"1 / x: {used()} {peak()} {z.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"1 / x backward: {used()} {peak()}")
del z
x.grad = None
torch.cuda.reset_peak_memory_stats()
z = 2.5 / x
print(f"2.5 / x: {used()} {peak()} {z.grad_fn.name()} {z.grad_fn.next_functions[0][0].name()}")
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"2.5 / x backward: {used()} {peak()}")
del z
x.grad = None
torch.cuda.reset_peak_memory_stats()
m = a.max(dim=1)
print(f"max(dim): {used()} {peak()} {type(m).__name__} {tuple(m.values.shape)} {m.indices.dtype} {len(m)}")
vals, idx = a.min(1, keepdim=True)
print(f"min(dim): {used()} {tuple(vals.shape)} {idx.dtype}")
print(m[0].shape == m.values.shape, m[1] is m.indices)
del m, vals, idx
mx = torch.max(x, dim=0)
print(f"torch.max(x, dim): {used()} {mx.values.grad_fn.name()} {mx.indices.requires_grad}")
del mx
print(f"end: {used()}")
