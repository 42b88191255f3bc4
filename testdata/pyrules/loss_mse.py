# F.mse_loss and F.l1_loss by reduction, dtype and size, with backward:
# what forward allocates (mse: its output of the input's size even when
# reduced to 0-d, a temporary of that size and the mean's kernel buffer;
# l1: sub, abs and mean), what autograd saves, and what backward makes
# (target requiring grad too); each statement alone so its peak shows.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(1024, 1024, device='cuda', requires_grad=True)
t = torch.randn(1024, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.mse_loss(x, t)
print(f"mse mean: {used()} {peak()} {loss.grad_fn.name()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"mse mean backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.mse_loss(x, t, reduction='sum')
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"mse sum backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.mse_loss(x, t, reduction='none')
print(f"mse none: {used()} {peak()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"mse none backward: {used()} {peak()}")
del loss
x.grad = None
u = torch.randn(1024, 1024, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
loss = F.mse_loss(x, u)
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"mse target grad backward: {used()} {peak()}")
del loss, u
x.grad = None
xb = torch.randn(1024, 2048, device='cuda', dtype=torch.bfloat16, requires_grad=True)
tb = torch.randn(1024, 2048, device='cuda', dtype=torch.bfloat16)
torch.cuda.reset_peak_memory_stats()
loss = F.mse_loss(xb, tb)
print(f"mse bf16: {used()} {peak()} {loss.dtype}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"mse bf16 backward: {used()} {peak()}")
del loss
torch.cuda.reset_peak_memory_stats()
loss = F.l1_loss(x, t)
print(f"l1 mean: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"l1 mean backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.l1_loss(x, t, reduction='sum')
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"l1 sum backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.l1_loss(x, t, reduction='none')
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"l1 none backward: {used()} {peak()}")
del loss
x.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.l1_loss(xb, tb)
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"l1 bf16 backward: {used()} {peak()}")
del loss
xb.grad = None
s = torch.randn(4, 10, device='cuda', requires_grad=True)
st = torch.randn(4, 10, device='cuda')
torch.cuda.reset_peak_memory_stats()
F.mse_loss(s, st).backward()
F.l1_loss(s, st).backward()
print(f"small: {used()} {peak()}")
with torch.no_grad():
    loss = F.mse_loss(x, t)
print(f"mse no_grad: {used()} {peak()}")
del loss
