# In-place ops write their tensor's own storage and allocate nothing on
# the GPU, with a number or a tensor that broadcasts; copy_ from a host
# tensor of another dtype stages it on the GPU first; under autograd an
# in-place op on a leaf fails, one on a non-leaf records its node, and a
# tensor saved for backward then modified fails at backward.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.zeros(1024, 1024, device='cuda')
y = torch.ones(1024, 1024, device='cuda')
row = torch.ones(1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
x.add_(y)
x.add_(1)
x.add_(row, alpha=2)
x.mul_(y)
x.mul_(2)
x.sub_(y)
x.sub_(1)
x.div_(y)
x.div_(2)
x.zero_()
x.fill_(3)
x.copy_(y)
x.clamp_(0, 1)
x.clamp_(min=0.5)
x.relu_()
x -= y
x *= 2
x /= 4
x += row
print(f"in place: {used()} {peak()}")
h = torch.ones(1024, 1024, dtype=torch.float64)
torch.cuda.reset_peak_memory_stats()
x.copy_(h)
print(f"copy_ from float64 on the host: {used()} {peak()}")
h32 = torch.ones(1024, 1024)
torch.cuda.reset_peak_memory_stats()
x.copy_(h32)
print(f"copy_ from float32 on the host: {used()} {peak()}")
del h, h32
w = torch.rand(1024, 1024, device='cuda', requires_grad=True)
try:
    w.add_(1)
except RuntimeError as e:
    print(f"leaf: {e}")
a = w * 2
a.mul_(3)
a.add_(y)
a.sub_(1)
a.div_(2)
print(f"non-leaf in place: {used()} {a.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"backward: {used()} {peak()}")
del a
w.grad = None
b = w.exp()
b.mul_(2)
torch.cuda.reset_peak_memory_stats()
b.sum().backward()
print(f"saved result modified: {used()} {peak()}")
del b
c = w.sigmoid()
c.relu_()
c.sum().backward()
print(f"relu_ after sigmoid: {used()} {w.grad is not None}")
del c
w.grad = None
with torch.no_grad():
    w.mul_(0.5)
    w -= 0.1
print(f"no_grad in place on a leaf: {used()}")
del x, y, row, w
print(f"end: {used()}")
