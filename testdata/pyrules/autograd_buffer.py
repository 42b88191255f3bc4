# How autograd adds the gradients that meet at one input (InputBuffer):
# the first to arrive is kept; the next is added into it in place when
# grad mode is off and autograd holds the only reference to the first and
# to its storage (dense; a view's base holds the storage too), else the sum
# is a new tensor and both are freed. Each case has its own size (rows of
# 1024 float32, 4 KiB a row) so its allocations tell; each backward is a
# statement of its own. --events.
import torch
import torch.nn.functional as F

# two fresh gradients (mul's): added in place
x = torch.ones(512, 1024, device='cuda', requires_grad=True)
y = x * 2
(y * 3 + y * 5).sum().backward()
del x, y
# one gradient twice (add passes the same tensor to both): a new sum
x = torch.ones(768, 1024, device='cuda', requires_grad=True)
y = x * 2
((y + y) * 3).sum().backward()
del x, y
# a view made in backward (view's) first, a fresh one second
x = torch.ones(1024, 1024, device='cuda', requires_grad=True)
y = x * 2
a = y * 5
b = y.view(-1) * 3
(a.sum() + b.sum()).backward()
del x, y, a, b
# a fresh one first, the view second
x = torch.ones(1280, 1024, device='cuda', requires_grad=True)
y = x * 2
b = y.view(-1) * 3
a = y * 5
(a.sum() + b.sum()).backward()
del x, y, a, b
# a transposed view (t's backward) meeting a fresh one, both orders
x = torch.ones(1536, 1024, device='cuda', requires_grad=True)
y = x * 2
a = y * 5
b = y.t() * 3
(a.sum() + b.sum()).backward()
y = x * 2
b = y.t() * 3
a = y * 5
(a.sum() + b.sum()).backward()
del x, y, a, b
# a weight used by two linears: each gradient is a view (TBackward0 of
# mm's), so the sum is new
w = torch.ones(1792, 1024, device='cuda', requires_grad=True)
v = w * 2
i1 = torch.ones(256, 1024, device='cuda')
i2 = torch.ones(256, 1024, device='cuda')
(F.linear(i1, v) * 3 + F.linear(i2, v) * 5).sum().backward()
del w, v
# the same with a bias: addmm
w = torch.ones(2048, 1024, device='cuda', requires_grad=True)
bias = torch.ones(2048, device='cuda', requires_grad=True)
v = w * 2
(F.linear(i1, v, bias) + F.linear(i2, v, bias)).sum().backward()
del w, v, bias
# a matrix used twice as mm's second factor: fresh gradients, in place
w = torch.ones(1024, 2304, device='cuda', requires_grad=True)
v = w * 2
((i1 @ v) * 3 + (i2 @ v) * 5).sum().backward()
del w, v
# a 3-d input to linear twice: its gradients are views (linear folds the
# batch through view)
x = torch.ones(4, 640, 1024, device='cuda', requires_grad=True)
y = x * 2
lin = torch.ones(512, 1024, device='cuda')
(F.linear(y, lin) * 3 + F.linear(y, lin) * 5).sum().backward()
del x, y
# AccumulateGrad: a leaf's gradient that is a view is stolen (no copy)
# when nothing else holds it, then accumulated into in place
p = torch.ones(2560, 1024, device='cuda', requires_grad=True)
(p.view(-1) * 3).sum().backward()
(p.view(-1) * 3).sum().backward()
del p
# a leaf used twice, its gradients summed first
p = torch.ones(2816, 1024, device='cuda', requires_grad=True)
(p.view(-1) * 3 + p.view(-1) * 5).sum().backward()
(p * 3 + p.view(-1, 1024) * 5).sum().backward()
del p, i1, i2, lin
# under autocast: a weight cast once (cached) for two linears
m = torch.nn.Linear(1024, 3072).cuda()
i1 = torch.ones(256, 1024, device='cuda')
with torch.autocast('cuda', dtype=torch.bfloat16):
    out = m(i1) + m(i1)
out.float().sum().backward()
del out, m, i1
