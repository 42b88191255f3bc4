# Shape ops added to ops_repeat_shape.py after it was recorded (that
# script stays as recorded): amin forward and backward, amax over every
# dimension, repeat_interleave by a tensor of counts (forward, backward,
# and of the counts alone: the indices), roll with no dims of a tensor
# that is not contiguous, clamp_max.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
y = x.amin(1)
print(f"amin: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"amin backward: {used()} {peak()}")
del y
x.grad = None
y = x.amax((0, 1))
print(f"amax all dims: {used()} {y.shape}")
del y
counts = torch.tensor([1, 0, 3, 2] * 128, device='cuda')
y = x.repeat_interleave(counts, dim=0)
print(f"repeat_interleave counts: {used()} {y.shape} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"repeat_interleave counts backward: {used()} {peak()}")
del y
x.grad = None
print(f"repeat_interleave indices: {torch.repeat_interleave(counts[:4]).tolist()} {used()}")
y = x.t().roll(5)
print(f"roll flat: {used()} {y.shape} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"roll flat backward: {used()} {peak()}")
del y, counts
x.grad = None
y = x.clamp_max(0.5)
print(f"clamp_max: {used()} {y.grad_fn.name()}")
del y
