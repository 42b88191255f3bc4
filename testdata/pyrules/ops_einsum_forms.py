# torch.einsum as aten computes it, forward and backward: each operand
# permuted to the output's letters then the contracted ones (a repeated
# letter a diagonal view, a missing one unsqueezed), one operand summed,
# pairs contracted by a permute, a reshape (a copy where no view fits)
# and a bmm (which copies an operand cuBLAS cannot read), three operands
# in the order opt_einsum's path picks (or left to right without it).
import torch

print(torch.backends.opt_einsum.is_available(), torch.backends.opt_einsum.enabled, torch.backends.opt_einsum.strategy)
a = torch.rand(1024, 1024, device='cuda', requires_grad=True)
c = torch.rand(1024, 1024, device='cuda', requires_grad=True)
b = torch.rand(1024, 512, device='cuda', requires_grad=True)
w = torch.rand(512, 256, device='cuda', requires_grad=True)
x = torch.rand(16, 64, 32, device='cuda', requires_grad=True)
y = torch.rand(16, 32, 128, device='cuda', requires_grad=True)
u = torch.rand(32, 8, 16, device='cuda', requires_grad=True)
z = torch.rand(16, 64, 64, device='cuda', requires_grad=True)
v = torch.rand(1024, device='cuda', requires_grad=True)
v2 = torch.rand(2048, device='cuda', requires_grad=True)


def show(r):
    print(tuple(r.shape), r.stride(), r.is_contiguous(), r.grad_fn.name())


def clear():
    for t in (a, c, b, w, x, y, u, z, v, v2):
        t.grad = None


r = torch.einsum('ii->i', a)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ii', a)
show(r)
r.backward()
del r
clear()
r = torch.einsum('bii->bi', z)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij->j', a)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij,ij->j', a, c)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij,jk->ki', a, b)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij,jk->ik', a.detach(), b)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij,ji->', a, c)
show(r)
r.backward()
del r
clear()
r = torch.einsum('i,i->', v, v)
show(r)
r.backward()
del r
clear()
r = torch.einsum('i,j->ij', v, v2)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('bij,jkb->ik', x, u)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('bij,bjk->ik', x, y)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('...ij,...jk->...ik', x, y)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('...ij,...jk', x, y)
show(r)
del r
r = torch.einsum('b...->...', x)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('...ij->...ji', x)
show(r)
del r
r = torch.einsum('bij,bkj->bik', x, x)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('ij,jk,kl->il', a, b, w)
show(r)
r.sum().backward()
del r
clear()
r = torch.einsum('i,ij,j->', v, a, v)
show(r)
r.backward()
del r
clear()
torch.backends.opt_einsum.enabled = False
r = torch.einsum('ij,jk,kl->il', a, b, w)
show(r)
r.sum().backward()
del r
clear()
torch.backends.opt_einsum.enabled = True
q = torch.rand(8, 128, 4, 64, device='cuda', requires_grad=True)
k = torch.rand(8, 256, 4, 64, device='cuda', requires_grad=True)
r = torch.einsum('bqhd,bkhd->bhqk', q, k)
show(r)
r.sum().backward()
del r
q.grad = None
k.grad = None
with torch.no_grad():
    r = torch.einsum('ij,ij->j', a, c)
print(tuple(r.shape), r.stride())
del r
print(torch.cuda.memory_allocated())
