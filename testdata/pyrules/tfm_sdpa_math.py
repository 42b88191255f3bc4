# F.scaled_dot_product_attention where PyTorch 2.11 takes its math
# backend on the H200: 3-d query, key and value (the fused kernels take
# only 4-d), float64, a last dimension that is not contiguous; with and
# without grad, causal, a bool and a float mask, scale=; backward.
# `--events`.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
q = torch.randn(32, 128, 64, device='cuda', requires_grad=True)
k = torch.randn(32, 256, 64, device='cuda', requires_grad=True)
v = torch.randn(32, 256, 32, device='cuda', requires_grad=True)
with torch.no_grad():
    a = F.scaled_dot_product_attention(q, k, v)
print(f"3-d no_grad: {used()} {peak()} {a.shape} {a.stride()}")
del a
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(q, k, v)
print(f"3-d grad: {used()} {peak()} {a.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"3-d backward: {used()} {peak()}")
del a
q.grad = k.grad = v.grad = None
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(q, k[:, :128], v[:, :128], is_causal=True)
print(f"3-d causal: {used()} {peak()}")
a.backward(torch.ones_like(a))
print(f"3-d causal backward: {used()} {peak()}")
del a
q.grad = k.grad = v.grad = None
mask = torch.ones(128, 256, device='cuda', dtype=torch.bool).tril()
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(f"3-d bool mask: {used()} {peak()}")
del a
fmask = torch.zeros(128, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    a = F.scaled_dot_product_attention(q, k, v, attn_mask=fmask, scale=0.5)
print(f"3-d float mask, scale: {used()} {peak()}")
del a, mask, fmask
q64 = torch.randn(2, 4, 128, 64, device='cuda', dtype=torch.float64, requires_grad=True)
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(q64, q64, q64)
print(f"float64: {used()} {peak()}")
a.sum().backward()
print(f"float64 backward: {used()} {peak()}")
del a, q64
x = torch.randn(2, 4, 64, 128, device='cuda')
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(x.transpose(-1, -2), x.transpose(-1, -2), x.transpose(-1, -2))
print(f"strided: {used()} {peak()} {a.stride()}")
del a, x
y = torch.randn(2, 4, 128, 64, device='cuda')
print(f"mT: {y.mT.shape} {y.mT.stride()} {y.mT.data_ptr() == y.data_ptr()} {used()}")
print(f"mH: {y.mH.shape} {y.mH.stride()} {used()}")
z = torch.randn(128, 64, device='cuda')
print(f"H: {z.H.shape} {z.H.stride()} {z.T.stride()} {used()}")
torch.cuda.empty_cache()
print(f"end: {used()} {torch.cuda.memory_reserved()}")
