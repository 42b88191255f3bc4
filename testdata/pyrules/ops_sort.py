# sort, argsort, topk, median over every element, kthvalue and mode
# under autograd: the outputs (values, then int64 indices), the
# temporaries (a sort of at most 4096 along its dimension: an arange of
# that length; a longer one: CUB's radix sort), what backward saves and
# makes; their values.
import torch

x = torch.rand(1024, 1024, device='cuda')
o = x.sort(1)
o = torch.sort(x, dim=0, descending=True)
o = x.sort(stable=True)
print(type(o).__name__, o.values.shape, o.indices.dtype)
a = x.argsort(1)
a = torch.argsort(x, dim=0, descending=True)
a = x.argsort(stable=True)
print(a.shape, a.dtype)
del o, a
h = torch.rand(64, 4096, device='cuda', dtype=torch.float16)
o = h.sort()
i = torch.randint(0, 100, (512, 2048), device='cuda')
o = i.sort(1)
o = x[:, :1000].sort(1)
o = x.t().sort(1)
o = x.t().sort(0)
v = torch.rand(4096, device='cuda')
o = v.sort()
o = torch.rand(3, 5, device='cuda').sort(0)
del o
o = x.topk(16, 1)
o = x.topk(16, dim=0)
o = x.topk(1)
o = torch.topk(x, 100, largest=False)
o = x.topk(16, sorted=False)
o = v.topk(10)
del o
m = v.median()
print(m.shape, m.dtype)
m = torch.rand(64, 64, device='cuda').median()
del m
s = torch.tensor([3., 1., 2., 5., 4., 0.5], device='cuda')
print(s.sort().values.tolist(), s.sort().indices.tolist(), s.sort(descending=True).values.tolist(), s.argsort().tolist(), s.argsort(descending=True).tolist())
print(s.topk(2).values.tolist(), s.topk(2).indices.tolist(), s.topk(2, largest=False).values.tolist(), s.median().item(), s.kthvalue(2).values.item())
print(s.view(2, 3).sort(1).values.tolist(), s.view(2, 3).sort(0).indices.tolist(), s.view(2, 3).topk(2, 1).indices.tolist(), s.view(2, 3).argsort(0, True).tolist())
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
o = w.sort(1)
print(o.values.grad_fn.name(), o.indices.requires_grad)
o.values.sum().backward()
del o
w.grad = None
o = w.sort(0, descending=True)
o.values.backward(torch.ones_like(o.values))
del o
w.grad = None
o = w.topk(16, 1)
print(o.values.grad_fn.name())
o.values.sum().backward()
del o
w.grad = None
o = w.kthvalue(3, 1)
print(o.values.grad_fn.name())
o.values.sum().backward()
del o
w.grad = None
o = w.median(1)
o.values.sum().backward()
del o
w.grad = None
o = w.mode(1)
print(o.values.grad_fn.name())
o.values.sum().backward()
del o
w.grad = None
u = torch.rand(4096, device='cuda', requires_grad=True)
m = u.median()
print(m.grad_fn.name())
m.backward()
del m
w.grad = None
a = w.argsort(1)
print(a.requires_grad)
