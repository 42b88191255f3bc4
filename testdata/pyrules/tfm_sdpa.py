# F.scaled_dot_product_attention in float32 on the H200 (the
# memory-efficient kernel): forward makes the output (laid out
# [B, T, H, D], returned transposed) and, when grad is needed, the
# logsumexp (float32 [B, H, T]); autograd saves q, k, v, the output and
# the logsumexp; backward makes dq, dk, dv, the delta's temporaries and
# the kernel's workspace; shapes as in train_gpt (B=8, T=128, d=256,
# 4 heads) and a few others; `--events`.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
q = torch.randn(8, 4, 128, 64, device='cuda', requires_grad=True)
k = torch.randn(8, 4, 128, 64, device='cuda', requires_grad=True)
v = torch.randn(8, 4, 128, 64, device='cuda', requires_grad=True)
a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(f"causal: {used()} {a.grad_fn.name()} {a.stride()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"causal backward: {used()} {peak()} {q.grad.stride()}")
del a
q.grad = k.grad = v.grad = None
a = F.scaled_dot_product_attention(q, k, v)
g = torch.ones(8, 4, 128, 64, device='cuda')
torch.cuda.reset_peak_memory_stats()
a.backward(g)
print(f"full backward: {used()} {peak()}")
del a, g
q.grad = k.grad = v.grad = None
with torch.no_grad():
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(f"no_grad: {used()}")
del a
mask = torch.ones(128, 128, device='cuda', dtype=torch.bool).tril()
a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(f"bool mask: {used()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"bool mask backward: {used()} {peak()}")
del a, mask
q.grad = k.grad = v.grad = None
bias = torch.zeros(128, 128, device='cuda')
a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
print(f"float mask: {used()}")
del a, bias
a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1, is_causal=True)
print(f"dropout: {used()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"dropout backward: {used()} {peak()}")
del a, q, k, v
for (T, D) in ((256, 64), (512, 64), (100, 64), (128, 32), (128, 128), (1024, 64), (128, 40)):
    q = torch.randn(8, 4, T, D, device='cuda', requires_grad=True)
    k = torch.randn(8, 4, T, D, device='cuda', requires_grad=True)
    v = torch.randn(8, 4, T, D, device='cuda', requires_grad=True)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    print(f"T={T} D={D}: {used()}")
    torch.cuda.reset_peak_memory_stats()
    a.sum().backward()
    print(f"T={T} D={D} backward: {used()} {peak()}")
    del a, q, k, v
print(f"end: {used()}")
