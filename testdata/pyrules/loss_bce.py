# F.binary_cross_entropy_with_logits by reduction and dtype, with
# backward: forward's log_sigmoid, 1 - target and the mean (freed after,
# the last made first); what backward makes; each statement alone so
# its peak shows.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(1024, 1024, device='cuda', requires_grad=True)
t = torch.rand(1024, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.binary_cross_entropy_with_logits(x, t)
print(f"bce mean: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"bce mean backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.binary_cross_entropy_with_logits(x, t, reduction='sum')
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"bce sum backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.binary_cross_entropy_with_logits(x, t, reduction='none')
print(f"bce none: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"bce none backward: {used()} {peak()}")
del loss
x.grad = None
xb = torch.randn(1024, 2048, device='cuda', dtype=torch.bfloat16, requires_grad=True)
tb = torch.rand(1024, 2048, device='cuda', dtype=torch.bfloat16)
torch.cuda.reset_peak_memory_stats()
loss = F.binary_cross_entropy_with_logits(xb, tb)
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"bce bf16 backward: {used()} {peak()}")
del loss
s = torch.randn(4, 10, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
F.binary_cross_entropy_with_logits(s, torch.ones(4, 10, device='cuda')).backward()
print(f"small: {used()} {peak()}")
