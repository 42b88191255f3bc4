# The nodes of arithmetic with a Python number (Python's bindings leave
# out sub.Scalar and div.Scalar, so x - 1 and x / 2 are taken to run the
# Tensor overloads: SubBackward0, DivBackward0; 1 - x is rsub.Scalar's),
# and torch.maximum / minimum of operands of two shapes (a broadcast
# row that needs its gradient summed) and of two dtypes (float16 and
# float32), forward and backward: engine/select.go estimates those.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
print(f"names: {(x - 1).grad_fn.name()} {(x / 2).grad_fn.name()} {(x + 1).grad_fn.name()} {(x * 2).grad_fn.name()} {(1 - x).grad_fn.name()}")
print(f"functions: {torch.sub(x, 1).grad_fn.name()} {x.sub(1, alpha=2).grad_fn.name()} {torch.div(x, 2).grad_fn.name()} {x.div(2.5).grad_fn.name()}")
y = x - 1
print(f"x - 1: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"x - 1 backward: {used()} {peak()}")
del y
x.grad = None
r = torch.rand(1, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = torch.maximum(x, r)
print(f"maximum broadcast: {used()} {peak()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"maximum broadcast backward: {used()} {peak()}")
del y
x.grad = r.grad = None
h = torch.rand(512, 1024, device='cuda', dtype=torch.float16, requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = torch.minimum(x, h)
print(f"minimum float32 float16: {used()} {peak()} {y.dtype}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"minimum float32 float16 backward: {used()} {peak()} {h.grad.dtype}")
del y
x.grad = h.grad = None
