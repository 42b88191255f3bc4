# tril_ on the GPU, as ops_census_misc.py recorded triu_: in place on a
# temporary under autograd (forward and backward), on a causal mask
# under no_grad, on a transposed view, with a negative diagonal; and the
# out-of-place tril of a mask. The tool models tril_ as triu_'s kernel
# (nothing allocated forward; backward one tensor) and labels it
# estimated until this is recorded.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
y = (x * 1).tril_(1)
print(f"tril_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"tril_ backward: {used()} {peak()}")
del y
x.grad = None
y = (x * 1).tril_(-3)
y.sum().backward()
print(f"tril_ -3 backward: {used()}")
del y
x.grad = None
m = torch.ones(256, 256, device='cuda')
with torch.no_grad():
    m.tril_()
print(f"tril_ mask: {used()} {m.sum().item()}")
t = torch.ones(256, 128, device='cuda').t()
t.tril_()
print(f"tril_ transposed: {used()} {t.is_contiguous()}")
c = torch.ones(64, 64, device='cuda').tril()
print(f"tril: {used()} {c.sum().item()}")
del m, t, c
