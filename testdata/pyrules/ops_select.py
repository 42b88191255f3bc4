# softmax and log_softmax save their result and their backward makes one
# gradient; clamp, where and masked_fill save their input or mask, and
# their backward makes the masks and gradients it needs; each statement
# alone so its peak shows.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
y = x.softmax(dim=-1)
print(f"softmax: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"softmax backward: {used()} {peak()}")
del y
x.grad = None
y = torch.softmax(x, 0)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"softmax(dim=0) backward, dense gradient: {used()} {peak()}")
del y
x.grad = None
y = torch.log_softmax(x, dim=1)
print(f"log_softmax: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"log_softmax backward: {used()} {peak()}")
del y
x.grad = None
y = x.clamp(0.25, 0.75)
print(f"clamp: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"clamp backward: {used()} {peak()}")
del y
x.grad = None
y = torch.clamp(x, min=0.5)
print(f"clamp(min): {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"clamp(min) backward: {used()} {peak()}")
del y
x.grad = None
mask = x > 0.5
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
y = torch.where(mask, x, w)
print(f"where: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"where backward: {used()} {peak()}")
del y
x.grad = None
w.grad = None
y = x.masked_fill(mask, 0.0)
print(f"masked_fill: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"masked_fill backward: {used()} {peak()}")
del y, mask, w
x.grad = None
with torch.no_grad():
    a = x.softmax(-1)
    b = x.clamp(max=0.5)
    c = torch.where(x > 0.5, x, 0.0)
print(f"no_grad: {used()}")
del a, b, c, x
print(f"end: {used()}")
