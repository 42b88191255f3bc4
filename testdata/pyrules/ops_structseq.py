# The ops that return torch.return_types structseqs (tuple subclasses
# with named fields): what they are, how they print and index, and what
# each allocates (max/min along a dim, sort, topk, kthvalue, mode,
# median, var_mean, std_mean), forward and backward.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
s = torch.arange(6.).view(2, 3)
r = s.max(1)
print(isinstance(r, tuple), type(r).__name__, type(r).__module__, len(r), r[0].tolist(), r[-1].tolist(), r.values is r[0])
print(r)
v, i = s.min(dim=0)
print(v, i, r == r, r.count(r[0]), r.index(r[1]))
print(torch.return_types.max, isinstance(r, torch.return_types.max), r._fields if hasattr(r, '_fields') else 'no _fields', r.n_fields, r.n_sequence_fields)
print(repr(s.sort(1)))
print(s.topk(2, 1))
print(type(s.kthvalue(2, 1)).__name__, type(s.median(1)).__name__, type(s.mode(1)).__name__, type(torch.var_mean(s, 1)).__name__, type(torch.std_mean(s)).__name__)
print(r[:1], r + (1,), list(r)[0].shape)
x = torch.rand(1024, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
o = x.sort(1)
print(f"sort(1): {used()} {peak()} {o.indices.dtype}")
del o
torch.cuda.reset_peak_memory_stats()
o = torch.sort(x, dim=0, descending=True)
print(f"sort(0): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.sort()
print(f"sort(): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.topk(16, dim=1)
print(f"topk(16, 1): {used()} {peak()} {tuple(o.values.shape)}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.topk(16, dim=0)
print(f"topk(16, 0): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.kthvalue(3, 1)
print(f"kthvalue: {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.median(1)
print(f"median(1): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.median()
print(f"median(): {used()} {peak()} {o.shape}")
del o
torch.cuda.reset_peak_memory_stats()
o = x.mode(1)
print(f"mode(1): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = torch.var_mean(x, 1)
print(f"var_mean(1): {used()} {peak()}")
del o
torch.cuda.reset_peak_memory_stats()
o = torch.std_mean(x)
print(f"std_mean(): {used()} {peak()}")
del o
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
o = w.sort(1)
print(f"sort grad: {used()} {peak()} {o.values.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
o.values.sum().backward()
print(f"sort backward: {used()} {peak()}")
del o
w.grad = None
torch.cuda.reset_peak_memory_stats()
o = w.topk(16, 1)
print(f"topk grad: {used()} {peak()} {o.values.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
o.values.sum().backward()
print(f"topk backward: {used()} {peak()}")
del o
print(f"end: {used()}")
