# The reductions the tool models, each statement alone so its peak
# shows: over every element (float32 and float16, small and large: the
# kernel's buffer of one accumulator a block), along the innermost
# dimension (odd sizes too) with and without keepdim, int64 sums of
# integers, and backward of max(dim), norm, sum/mean(dim) and a 2-d
# cumsum.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(4096, 1000, device='cuda')
h = torch.rand(48 << 20, device='cuda', dtype=torch.float16)
torch.cuda.reset_peak_memory_stats()
a = x.max()
torch.cuda.reset_peak_memory_stats()
b = h.max()
torch.cuda.reset_peak_memory_stats()
c = h.argmin()
torch.cuda.reset_peak_memory_stats()
d = h.norm()
torch.cuda.reset_peak_memory_stats()
e = h.var()
torch.cuda.reset_peak_memory_stats()
f = x.std()
torch.cuda.reset_peak_memory_stats()
g = x.min(dim=-1)
torch.cuda.reset_peak_memory_stats()
k = x.argmax(1, keepdim=True)
torch.cuda.reset_peak_memory_stats()
m = x.norm(dim=1, keepdim=True)
torch.cuda.reset_peak_memory_stats()
n = torch.std(x, 1)
torch.cuda.reset_peak_memory_stats()
s = x.sum(-1)
torch.cuda.reset_peak_memory_stats()
me = x.mean(dim=1, keepdim=True)
print(f"reductions: {used()} {peak()} {tuple(g[0].shape)} {k.dtype} {tuple(me.shape)}")
del a, b, c, d, e, f, g, k, m, n, s, me, h
ints = torch.randint(0, 5, (1000, 999), device='cuda')
torch.cuda.reset_peak_memory_stats()
si = ints.sum()
torch.cuda.reset_peak_memory_stats()
sd = ints.sum(1)
print(f"int sums: {used()} {peak()} {si.dtype} {sd.dtype}")
del ints, si, sd
w = torch.rand(2048, 512, device='cuda', requires_grad=True)
v = w.max(1)[0]
torch.cuda.reset_peak_memory_stats()
v.sum().backward()
print(f"max(dim) backward: {used()} {peak()}")
del v
w.grad = None
nr = w.norm()
torch.cuda.reset_peak_memory_stats()
(nr * 2).backward()
print(f"norm backward: {used()} {peak()}")
del nr
w.grad = None
r = w.sum(-1)
torch.cuda.reset_peak_memory_stats()
(r * 3).sum().backward()
print(f"sum(dim) backward: {used()} {peak()}")
del r
w.grad = None
r = w.mean(1)
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"mean(dim) backward: {used()} {peak()}")
del r
w.grad = None
c0 = w.cumsum(0)
torch.cuda.reset_peak_memory_stats()
c0.sum().backward()
print(f"cumsum(0) backward: {used()} {peak()}")
del c0, w, x
print(f"end: {used()}")
