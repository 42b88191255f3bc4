# torch.cumprod as the zoo's programs use it (ddpm_unet.py's noise
# schedule): a tensor's only line (CUB's DeviceScan and its scratch) of
# 1000, 4096 and 2^20 float32 forward and backward, a line with a zero
# (cumprod_backward's other path), dtype=float64, a transposed input,
# and a float16 line under no_grad.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
for n in (1000, 4096, 1 << 20):
    x = torch.rand(n, device='cuda', requires_grad=True)
    torch.cuda.reset_peak_memory_stats()
    y = torch.cumprod(x, 0)
    print(f"cumprod {n}: {used()} {peak()}")
    torch.cuda.reset_peak_memory_stats()
    y.backward(torch.ones_like(y))
    print(f"cumprod {n} backward: {used()} {peak()}")
    del x, y
z = torch.rand(1000, device='cuda')
z[10] = 0
z.requires_grad_()
y = z.cumprod(0)
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"cumprod with a zero backward: {used()} {peak()}")
del z, y
w = torch.rand(8, 1000, device='cuda')
torch.cuda.reset_peak_memory_stats()
v = w.cumprod(dim=1, dtype=torch.float64)
print(f"cumprod float64: {used()} {peak()} {v.dtype}")
torch.cuda.reset_peak_memory_stats()
v = w.t().cumprod(0)
print(f"cumprod transposed: {used()} {peak()}")
with torch.no_grad():
    h = torch.rand(1000, device='cuda', dtype=torch.float16)
    torch.cuda.reset_peak_memory_stats()
    k = h.cumprod(0)
    print(f"cumprod float16: {used()} {peak()}")
