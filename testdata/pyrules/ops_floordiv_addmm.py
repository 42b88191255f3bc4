# // % and a number ** a tensor, addmm, gather, bmm of transposed batches:
# what each allocates, saves and what its backward makes, in order.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.arange(1., 7., device='cuda').view(2, 3)
print(x // 2, x % 4, 2 ** x, 7 // x, 7 % x, x.floor_divide(4), x.remainder(4), torch.remainder(x, 2.5), x.fmod(4), x.floor(), x.ceil(), x.round())
i = torch.arange(-3, 4, device='cuda')
print(i // 2, i % 2, i // 2.5, -7 // i[4:], torch.div(i, 2, rounding_mode='floor'), torch.div(i, 2, rounding_mode='trunc'))
g = torch.rand(1024, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = g // 0.5
print(f"floordiv: {used()} {peak()} {y.dtype}")
torch.cuda.reset_peak_memory_stats()
z = g % 0.5
print(f"remainder: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
p = 2 ** g
print(f"rpow: {used()} {peak()}")
del y, z, p
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
r = w % 0.3
print(f"remainder grad: {used()} {peak()} {r.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"remainder backward: {used()} {peak()}")
del r
w.grad = None
torch.cuda.reset_peak_memory_stats()
r = 2 ** w
print(f"rpow grad: {used()} {peak()} {r.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"rpow backward: {used()} {peak()}")
del r
w.grad = None
bias = torch.rand(1024, device='cuda', requires_grad=True)
m2 = torch.rand(1024, 512, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
o = torch.addmm(bias[:512], w, m2)
print(f"addmm: {used()} {peak()} {o.grad_fn.name()} {tuple(o.shape)}")
torch.cuda.reset_peak_memory_stats()
o.sum().backward()
print(f"addmm backward: {used()} {peak()}")
del o
w.grad = None
m2.grad = None
bias.grad = None
full = torch.rand(1024, 512, device='cuda')
torch.cuda.reset_peak_memory_stats()
o = torch.addmm(full, g, m2.detach(), beta=0.5, alpha=2)
print(f"addmm full: {used()} {peak()}")
del o
idx = torch.zeros(1024, 16, dtype=torch.long, device='cuda')
torch.cuda.reset_peak_memory_stats()
o = torch.gather(w, 1, idx)
print(f"gather: {used()} {peak()} {o.grad_fn.name()} {tuple(o.shape)}")
torch.cuda.reset_peak_memory_stats()
o.sum().backward()
print(f"gather backward: {used()} {peak()}")
del o
w.grad = None
torch.cuda.reset_peak_memory_stats()
o = w.gather(0, idx[:4])
print(f"gather method: {used()} {peak()}")
del o
print(torch.gather(x, 1, torch.tensor([[0, 0], [1, 2]], device='cuda')))
p = torch.rand(16, 128, 64, device='cuda')
q = torch.rand(16, 128, 64, device='cuda')
torch.cuda.reset_peak_memory_stats()
o = torch.bmm(p, q.transpose(1, 2))
print(f"bmm transposed: {used()} {peak()} {o.stride()}")
del o
torch.cuda.reset_peak_memory_stats()
o = torch.bmm(p.transpose(1, 2), q)
print(f"bmm transposed first: {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = torch.bmm(p[:, ::2], q.transpose(1, 2))
print(f"bmm strided: {used()} {peak()}")
del o
print(f"end: {used()}")
