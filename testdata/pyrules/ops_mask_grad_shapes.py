# More of indexing by a bool mask and masked_select under autograd: a mask
# over two of three dimensions, a gradient already contiguous, an empty
# mask, a mask of 65,536 elements, masked_select's mask broadcast, its
# input broadcast (the gradient summed down), both, a mask of more leading
# dimensions, larger masks (its scan's scratch), what each node saves
# (masked_select its input, indexing the mask alone), two masks' gradients
# added, a mask broadcast by a leading 1, float16, and last the most
# indices one tile of CUB's sort takes and one more.
import torch

x = torch.rand(8, 16, 64, device='cuda', requires_grad=True)
m = torch.arange(128, device='cuda').view(8, 16) % 3 == 0
y = x[m]
print(y.grad_fn.name(), y.shape)
y.sum().backward()
del y
x.grad = None
y = x[m]
y.backward(torch.ones_like(y))
del y
x.grad = None
e = torch.arange(128, device='cuda').view(8, 16) < 0
y = x[e]
print(y.shape)
y.sum().backward()
del y
x.grad = None
y = x.view(128, 64)[m.view(128)] * 2
y.sum().backward()
del y
x.grad = None
z = torch.rand(65536, 4, device='cuda', requires_grad=True)
k = torch.arange(65536, device='cuda') % 64 == 0
y = z[k]
y.sum().backward()
del y
z.grad = None
v = torch.rand(32, 32, device='cuda', requires_grad=True)
r = torch.arange(32, device='cuda') % 2 == 0
y = torch.masked_select(v, r)
print(y.grad_fn.name(), y.shape)
y.sum().backward()
del y
v.grad = None
w = torch.arange(1024, device='cuda').view(32, 32) < 100
u = torch.rand(32, device='cuda', requires_grad=True)
y = torch.masked_select(u, w)
y.sum().backward()
print(u.grad.shape)
del y
u.grad = None
c = torch.rand(32, 1, device='cuda', requires_grad=True)
y = torch.masked_select(c, w)
y.sum().backward()
del y
c.grad = None
y = torch.masked_select(c, r)
print(y.shape)
y.sum().backward()
print(c.grad.shape)
del y
c.grad = None
b = torch.rand(4, 32, 32, device='cuda', requires_grad=True)
y = torch.masked_select(b, w)
y.sum().backward()
del y
b.grad = None
y = torch.masked_select(v, w)
y.backward(torch.ones_like(y))
del y
v.grad = None
y = torch.masked_select(v, w < 0)
y.sum().backward()
del y
v.grad = None
del b, c, u, x, z
g = torch.rand(256, 256, device='cuda', requires_grad=True)
h = torch.arange(65536, device='cuda').view(256, 256) % 2 == 0
y = torch.masked_select(g, h)
y.sum().backward()
del y
g.grad = None
y = torch.masked_select(g[:100], h[:100])
y.sum().backward()
del y
g.grad = None
y = torch.masked_select(g[:10], h[:10])
y.sum().backward()
del y
g.grad = None
q = torch.rand(16, 256, 256, device='cuda', requires_grad=True)
y = torch.masked_select(q, h)
y.sum().backward()
del y, q
y = torch.masked_select(v * 2, w)
print(torch.cuda.memory_allocated())
y.sum().backward()
del y
v.grad = None
y = (v * 2)[w]
print(torch.cuda.memory_allocated())
y.sum().backward()
del y
v.grad = None
(v[w].sum() + v[r].sum()).backward()
v.grad = None
p = torch.rand(1, 32, 32, device='cuda', requires_grad=True)
y = torch.masked_select(p, w)
y.sum().backward()
del y, p
f = torch.rand(32, 32, device='cuda', dtype=torch.float16, requires_grad=True)
y = torch.masked_select(f, w)
y.sum().backward()
del y
y = f[w]
y.sum().backward()
del y, f
a = torch.rand(4096, 4, device='cuda', requires_grad=True)
y = a[torch.arange(4096, device='cuda') < 2304]
y.sum().backward()
del y
a.grad = None
y = a[torch.arange(4096, device='cuda') < 2305]
y.sum().backward()
del y
a.grad = None
