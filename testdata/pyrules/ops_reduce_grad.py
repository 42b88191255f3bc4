# Reductions under autograd: what max(dim), norm, std, var, cumsum and a
# sum over a dim save, and what their backward makes.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
v = w.max(dim=1)[0]
print(f"max(dim): {used()} {v.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
v.sum().backward()
print(f"max(dim) backward: {used()} {peak()}")
del v
w.grad = None
n = w.norm()
print(f"norm: {used()} {n.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
n.backward()
print(f"norm backward: {used()} {peak()}")
del n
w.grad = None
s = w.std()
torch.cuda.reset_peak_memory_stats()
s.backward()
print(f"std backward: {used()} {peak()}")
del s
w.grad = None
q = w.var(dim=1)
torch.cuda.reset_peak_memory_stats()
q.sum().backward()
print(f"var(dim) backward: {used()} {peak()}")
del q
w.grad = None
c = w.cumsum(1)
torch.cuda.reset_peak_memory_stats()
c.sum().backward()
print(f"cumsum backward: {used()} {peak()}")
del c
w.grad = None
r = w.sum(dim=0)
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"sum(dim) backward: {used()} {peak()}")
del r
w.grad = None
r = w.mean(1, keepdim=True)
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"mean(dim) backward: {used()} {peak()}")
del r, w
print(f"end: {used()}")
