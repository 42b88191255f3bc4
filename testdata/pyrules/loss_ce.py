# F.cross_entropy (log_softmax then nll_loss) and F.nll_loss by
# reduction, dtype and target form, with backward: the log_softmax
# output saved, nll_loss's output and total_weight, the zeros gradient
# of NllLossBackward0 then LogSoftmaxBackward0's; (N, C, d1) and
# (N, C, H, W) inputs (nll_loss2d); probability targets; ignore_index;
# label_smoothing recorded for later; each statement alone so its peak
# shows.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
z = torch.randn(2048, 1024, device='cuda', requires_grad=True)
y = torch.randint(0, 1024, (2048,), device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y)
print(f"ce mean: {used()} {peak()} {loss.grad_fn.name()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce mean backward: {used()} {peak()}")
del loss
z.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y, reduction='sum')
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce sum backward: {used()} {peak()}")
del loss
z.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y, reduction='none')
print(f"ce none: {used()} {peak()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"ce none backward: {used()} {peak()}")
del loss
z.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y, ignore_index=3)
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce ignore_index backward: {used()} {peak()}")
del loss
z.grad = None
zb = torch.randn(2048, 1024, device='cuda', dtype=torch.bfloat16, requires_grad=True)
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(zb, y)
print(f"ce bf16: {used()} {peak()} {loss.dtype}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce bf16 backward: {used()} {peak()}")
del loss
lp = F.log_softmax(z, dim=1)
torch.cuda.reset_peak_memory_stats()
loss = F.nll_loss(lp, y)
print(f"nll mean: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"nll mean backward: {used()} {peak()}")
del loss, lp
z.grad = None
lp = F.log_softmax(z, dim=1).detach().requires_grad_()
torch.cuda.reset_peak_memory_stats()
loss = F.nll_loss(lp, y, reduction='none')
print(f"nll none: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"nll none backward: {used()} {peak()}")
del loss, lp
img = torch.randn(8, 16, 64, 64, device='cuda', requires_grad=True)
seg = torch.randint(0, 16, (8, 64, 64), device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(img, seg)
print(f"ce 4d: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce 4d backward: {used()} {peak()}")
del loss
img.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(img, seg, reduction='none')
print(f"ce 4d none: {used()} {peak()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"ce 4d none backward: {used()} {peak()}")
del loss
img.grad = None
seq = torch.randn(64, 32, 256, device='cuda', requires_grad=True)
sy = torch.randint(0, 32, (64, 256), device='cuda')
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(seq, sy)
print(f"ce 3d: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce 3d backward: {used()} {peak()}")
del loss
seq.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(seq, sy, reduction='none')
print(f"ce 3d none: {used()} {peak()} {loss.shape}")
torch.cuda.reset_peak_memory_stats()
loss.sum().backward()
print(f"ce 3d none backward: {used()} {peak()}")
del loss
seq.grad = None
p = torch.rand(2048, 1024, device='cuda').softmax(dim=1)
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, p)
print(f"ce probs: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce probs backward: {used()} {peak()}")
del loss, p
z.grad = None
torch.cuda.reset_peak_memory_stats()
loss = F.cross_entropy(z, y, label_smoothing=0.1)
print(f"ce smoothing: {used()} {peak()} {loss.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"ce smoothing backward: {used()} {peak()}")
del loss
z.grad = None
s = torch.randn(4, 10, device='cuda', requires_grad=True)
sl = torch.tensor([1, 0, 9, 3], device='cuda')
torch.cuda.reset_peak_memory_stats()
F.cross_entropy(s, sl).backward()
print(f"small: {used()} {peak()}")
with torch.no_grad():
    loss = F.cross_entropy(z, y)
print(f"ce no_grad: {used()} {peak()}")
del loss
