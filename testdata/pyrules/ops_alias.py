# Indexing's autograd nodes and what each allocates: x[...] and x[:] are
# aliases (AliasBackward0), an int a select, a slice a slice, None an
# unsqueeze; advanced indexing (a list, a long tensor, a bool mask)
# copies, and its backward makes a zeroed tensor of the input's shape.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.ones(1024, 1024, device='cuda', requires_grad=True)
print(x[...].grad_fn, x[:].grad_fn, x[:, :].grad_fn, x[0].grad_fn, x[1:].grad_fn, x[None].grad_fn, x[..., None].grad_fn, x[0, 1].grad_fn)
print(x[...].data_ptr() == x.data_ptr(), x[:]._base is x, x[...]._is_view())
y = x * 1
print(y[...].grad_fn.name(), y[:].grad_fn.name(), y.detach()[...].grad_fn)
torch.cuda.reset_peak_memory_stats()
a = y[[0, 1, 5]]
print(f"list index: {used()} {peak()} {a.grad_fn.name()} {tuple(a.shape)} {a.is_contiguous()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward(retain_graph=True)
print(f"list index backward: {used()} {peak()}")
del a
x.grad = None
idx = torch.arange(0, 1024, 2, device='cuda')
torch.cuda.reset_peak_memory_stats()
b = y[idx]
print(f"tensor index: {used()} {peak()} {tuple(b.shape)}")
torch.cuda.reset_peak_memory_stats()
c = y[:, idx]
print(f"column index: {used()} {peak()} {tuple(c.shape)} {c.stride()}")
del b, c
m = torch.zeros(1024, 1024, dtype=torch.bool, device='cuda')
m[:512] = True
torch.cuda.reset_peak_memory_stats()
d = y.detach()[m]
print(f"mask index: {used()} {peak()} {tuple(d.shape)}")
del d
z = torch.arange(12, device='cuda').view(3, 4)
print(z[[0, 2]], z[:, [1, 3]], z[z > 5], z[torch.tensor([True, False, True], device='cuda')])
print(f"end: {used()}")
