# split, chunk and unbind under autograd (SplitBackward0 and
# UnbindBackward0: zeros for the pieces without a gradient, then a cat or
# a stack), and the views train_gpt takes of a split: view, transpose,
# contiguous and reshape under autograd, and the layout an elementwise op
# gives a transposed view.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(1024, 3072, device='cuda', requires_grad=True)
h = x * 1.5
q, k, v = h.split(1024, dim=1)
print(f"split: {used()} {q.grad_fn.name()} {q.is_contiguous()} {q.stride()} {v.storage_offset()}")
torch.cuda.reset_peak_memory_stats()
(q * k).sum().backward(retain_graph=True)
print(f"two of three: {used()} {peak()}")
x.grad = None
torch.cuda.reset_peak_memory_stats()
(q.sum() + k.sum() + v.sum()).backward(retain_graph=True)
print(f"all three: {used()} {peak()}")
x.grad = None
torch.cuda.reset_peak_memory_stats()
v.exp().sum().backward(retain_graph=True)
print(f"last alone: {used()} {peak()}")
x.grad = None
del q, k, v
a, b = h.split(768, dim=0)
print(f"split dim 0: {used()} {tuple(b.shape)} {a.is_contiguous()} {a.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
(a * 2).sum().backward(retain_graph=True)
print(f"first of dim 0: {used()} {peak()}")
x.grad = None
del a, b
p = h.split([1000, 2072], dim=1)
print(f"split sizes: {used()} {p[0].grad_fn.name()} {tuple(p[1].shape)}")
torch.cuda.reset_peak_memory_stats()
p[1].exp().sum().backward(retain_graph=True)
print(f"sizes, second: {used()} {peak()}")
x.grad = None
del p
c = h.chunk(3, dim=1)
print(f"chunk: {used()} {c[0].grad_fn.name()} {len(c)}")
torch.cuda.reset_peak_memory_stats()
(c[0] * c[2]).sum().backward(retain_graph=True)
print(f"chunk backward: {used()} {peak()}")
x.grad = None
del c
g = x.view(3, 1024, 1024) * 2
u = g.unbind(0)
print(f"unbind: {used()} {u[0].grad_fn.name()} {u[1].storage_offset()}")
torch.cuda.reset_peak_memory_stats()
(u[0] * u[1]).sum().backward(retain_graph=True)
print(f"unbind two: {used()} {peak()}")
x.grad = None
torch.cuda.reset_peak_memory_stats()
u[2].exp().sum().backward(retain_graph=True)
print(f"unbind one: {used()} {peak()}")
x.grad = None
del u, g
del h
w = torch.randn(768, 256, device='cuda', requires_grad=True)
inp = torch.randn(8, 128, 256, device='cuda')
B, T, D = inp.shape
qkv = inp @ w.t()
print(f"qkv: {used()} {qkv.grad_fn.name()} {qkv.stride()}")
q, k, v = qkv.split(D, dim=2)
q = q.view(B, T, 4, D // 4).transpose(1, 2)
k = k.view(B, T, 4, D // 4).transpose(1, 2)
v = v.view(B, T, 4, D // 4).transpose(1, 2)
print(f"heads: {used()} {q.grad_fn.name()} {q.grad_fn.next_functions[0][0].name()} {q.stride()} {q.is_contiguous()}")
torch.cuda.reset_peak_memory_stats()
y = q * k + v
print(f"elementwise of heads: {used()} {peak()} {y.stride()} {y.is_contiguous()}")
torch.cuda.reset_peak_memory_stats()
o = y.transpose(1, 2).contiguous().view(B, T, D)
print(f"merge heads: {used()} {peak()} {o.grad_fn.name()} {o.grad_fn.next_functions[0][0].name()}")
torch.cuda.reset_peak_memory_stats()
o.sum().backward()
print(f"heads backward: {used()} {peak()}")
del q, k, v, y, o, qkv
w.grad = None
z = torch.randn(8, 4, 128, 64, device='cuda', requires_grad=True)
zz = z * 2
torch.cuda.reset_peak_memory_stats()
m = zz.transpose(1, 2).contiguous().view(8, 128, 256)
print(f"contiguous copy: {used()} {peak()} {m.grad_fn.name()} {m.grad_fn.next_functions[0][0].name()}")
torch.cuda.reset_peak_memory_stats()
m.sum().backward()
print(f"contiguous backward: {used()} {peak()}")
del m
z.grad = None
torch.cuda.reset_peak_memory_stats()
r = zz.transpose(1, 2).reshape(8, 128, 256)
print(f"reshape copy: {used()} {peak()} {r.grad_fn.name()} {r.grad_fn.next_functions[0][0].name()}")
torch.cuda.reset_peak_memory_stats()
(r * r).sum().backward()
print(f"reshape backward: {used()} {peak()}")
del r
z.grad = None
r = zz.reshape(32, 128, 64)
print(f"reshape view: {used()} {r.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
(r * 3).sum().backward()
print(f"reshape view backward: {used()} {peak()}")
del r, zz, z
print(f"end: {used()}")
