# bmm, vector @ matrix, torch.mm and torch.stack, forward and backward:
# what each makes, saves, and what its backward makes in order (the
# cuBLAS workspaces: forward's thread and the autograd thread's).
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
a = torch.rand(16, 256, 512, device='cuda', requires_grad=True)
b = torch.rand(16, 512, 128, device='cuda', requires_grad=True)
c = torch.bmm(a, b)
print(f"bmm: {used()} {c.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
c.sum().backward()
print(f"bmm backward: {used()} {peak()}")
del c
a.grad = None
b.grad = None
d = a.bmm(b)
e = a @ b
print(f"bmm method and @: {used()} {e.grad_fn.name()}")
del d, e
v = torch.rand(1024, device='cuda', requires_grad=True)
M = torch.rand(1024, 2048, device='cuda', requires_grad=True)
r = v @ M
print(f"vector @ matrix: {used()} {r.grad_fn.name()} {tuple(r.shape)}")
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"vector @ matrix backward: {used()} {peak()}")
del r
v.grad = None
M.grad = None
p = torch.rand(1024, 1024, device='cuda')
q = torch.mm(p, p)
print(f"mm: {used()}")
del q
x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
y = torch.rand(1024, 1024, device='cuda', requires_grad=True)
s0 = torch.stack([x, y])
print(f"stack: {used()} {s0.grad_fn.name()} {tuple(s0.shape)}")
torch.cuda.reset_peak_memory_stats()
s0.sum().backward()
print(f"stack backward: {used()} {peak()}")
del s0
x.grad = None
y.grad = None
s1 = torch.stack((x, y), dim=1)
torch.cuda.reset_peak_memory_stats()
(s1 * 2).sum().backward()
print(f"stack(dim=1) backward: {used()} {peak()} {tuple(s1.shape)}")
del s1, a, b, v, M, p, x, y
print(f"end: {used()}")
