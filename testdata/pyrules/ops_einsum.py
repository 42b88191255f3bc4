# torch.einsum's common forms: each one product (mm, bmm, mv, dot) of
# permuted and reshaped views of its operands, forward and backward; the
# layout of its output.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
a = torch.rand(1024, 512, device='cuda', requires_grad=True)
b = torch.rand(512, 2048, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
c = torch.einsum('ij,jk->ik', a, b)
print(f"ij,jk->ik: {used()} {peak()} {c.grad_fn.name()} {c.stride()}")
torch.cuda.reset_peak_memory_stats()
c.sum().backward()
print(f"ij,jk->ik backward: {used()} {peak()}")
del c
a.grad = None
b.grad = None
torch.cuda.reset_peak_memory_stats()
c = torch.einsum('ik,jk->ij', a, a)
print(f"ik,jk->ij: {used()} {peak()} {c.grad_fn.name()} {c.stride()}")
del c
torch.cuda.reset_peak_memory_stats()
c = torch.einsum('ij,jk->ki', a, b)
print(f"ij,jk->ki: {used()} {peak()} {c.grad_fn.name()} {c.stride()}")
del c
torch.cuda.reset_peak_memory_stats()
t = torch.einsum('ij->ji', a)
print(f"ij->ji: {used()} {peak()} {t.grad_fn.name()} {t.stride()}")
del t
x = torch.rand(16, 256, 128, device='cuda')
y = torch.rand(16, 128, 512, device='cuda')
torch.cuda.reset_peak_memory_stats()
z = torch.einsum('bij,bjk->bik', x, y)
print(f"bij,bjk->bik: {used()} {peak()} {z.stride()}")
del z
q = torch.rand(8, 4, 128, 64, device='cuda', requires_grad=True)
k = torch.rand(8, 4, 128, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
s = torch.einsum('bhqd,bhkd->bhqk', q, k)
print(f"bhqd,bhkd->bhqk: {used()} {peak()} {s.grad_fn.name()} {s.stride()}")
torch.cuda.reset_peak_memory_stats()
s.sum().backward()
print(f"bhqd,bhkd->bhqk backward: {used()} {peak()}")
del s
q.grad = None
k.grad = None
v = torch.rand(1024, device='cuda')
m = torch.rand(2048, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
mv = torch.einsum('ij,j->i', m, v)
print(f"ij,j->i: {used()} {peak()} {tuple(mv.shape)}")
torch.cuda.reset_peak_memory_stats()
d = torch.einsum('i,i->', v, v)
print(f"i,i->: {used()} {peak()} {tuple(d.shape)}")
torch.cuda.reset_peak_memory_stats()
o = torch.einsum('i,j->ij', v, v)
print(f"i,j->ij: {used()} {peak()} {o.stride()}")
torch.cuda.reset_peak_memory_stats()
e = torch.einsum('ij,ij->i', m, m)
print(f"ij,ij->i: {used()} {peak()}")
del mv, d, o, e
print(f"end: {used()}")
