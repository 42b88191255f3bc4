# torch.einsum beyond one matrix product: traces, diagonals, sums of one
# operand, implicit outputs, ellipses, several contracted letters,
# elementwise products, three operands; what each allocates (sums,
# copies made by reshape, bmm) in order, and its output's layout.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
a = torch.rand(1024, 1024, device='cuda')
b = torch.rand(1024, 512, device='cuda')

def run(eq, *ops):
    torch.cuda.reset_peak_memory_stats()
    before = used()
    r = torch.einsum(eq, *ops)
    print(f"{eq}: {used() - before} {peak() - before} {tuple(r.shape)} {r.stride()} {r.is_contiguous()} {r.data_ptr() == ops[0].data_ptr()}")


run('ii->', a)
run('ii->i', a)
run('ij->i', a)
run('ij->j', a)
run('ij->', a)
run('ij', a)
run('ji', a)
run('ij,jk', a, b)
run('ij,jk->ki', a, b)
run('ij,ij->ij', a, a)
run('ij,ij->', a, a)
run('ij,ji->', a, a)
run('ij,ij->j', a, a)
run('ij,j->ij', a, a[0])
run('...ij,...jk->...ik', a, b)
run('ij,kj->ik', b.t(), b.t())
x = torch.rand(16, 64, 32, device='cuda')
y = torch.rand(16, 32, 128, device='cuda')
run('bij,bjk->bik', x, y)
run('bij,bkj->bik', x, y.transpose(1, 2))
run('bij,jkb->ik', x, torch.rand(32, 8, 16, device='cuda'))
run('ijk,jkl->il', torch.rand(64, 32, 16, device='cuda'), torch.rand(32, 16, 128, device='cuda'))
run('bij->bji', x)
run('bij->b', x)
run('bij,bjk->ik', x, y)
run('...ij,...jk', x, y)
run('ij,jk,kl->il', a, b, torch.rand(512, 256, device='cuda'))
run('i,i->', a[0], a[1])
run('i,j,k->ijk', a[0, :16], a[1, :32], a[2, :64])
q = torch.rand(8, 4, 128, 64, device='cuda', requires_grad=True)
k = torch.rand(8, 4, 64, 128, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
s = torch.einsum('bhqd,bhdk->bhqk', q, k)
print(f"bhqd,bhdk->bhqk: {used()} {peak()} {s.grad_fn.name()} {s.stride()}")
torch.cuda.reset_peak_memory_stats()
s.sum().backward()
print(f"backward: {used()} {peak()}")
del s
q.grad = None
k.grad = None
torch.cuda.reset_peak_memory_stats()
t = torch.einsum('bhqd->bh', q)
print(f"bhqd->bh: {used()} {peak()} {t.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
t.sum().backward()
print(f"backward: {used()} {peak()}")
del t
q.grad = None
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
t = torch.einsum('ii->', w)
print(f"trace: {used()} {peak()} {t.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
t.backward()
print(f"trace backward: {used()} {peak()}")
del t
e = torch.arange(9.).view(3, 3)
print(torch.einsum('ii->', e), torch.einsum('ii->i', e), torch.einsum('ij->j', e), torch.einsum('ij,ij->', e, e))
print(f"end: {used()}")
