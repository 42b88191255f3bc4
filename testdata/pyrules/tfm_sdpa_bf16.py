# F.scaled_dot_product_attention in bfloat16 and float16 on the H200
# (flash attention, or memory-efficient with a mask): forward's output,
# logsumexp and rng state; backward's gradients, dq accumulator and
# softmax_d; `--events`.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
q = torch.randn(8, 4, 128, 64, device='cuda', dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(8, 4, 128, 64, device='cuda', dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(8, 4, 128, 64, device='cuda', dtype=torch.bfloat16, requires_grad=True)
a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(f"causal: {used()} {a.grad_fn.name()} {a.stride()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"causal backward: {used()} {peak()} {q.grad.stride()}")
del a
q.grad = k.grad = v.grad = None
a = F.scaled_dot_product_attention(q, k, v)
g = torch.ones(8, 4, 128, 64, device='cuda', dtype=torch.bfloat16)
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
print(f"bool mask: {used()} {a.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"bool mask backward: {used()} {peak()}")
del a, mask
q.grad = k.grad = v.grad = None
a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1, is_causal=True)
print(f"dropout: {used()}")
torch.cuda.reset_peak_memory_stats()
a.sum().backward()
print(f"dropout backward: {used()} {peak()}")
del a, q, k, v
for (T, D, dt) in ((256, 64, torch.bfloat16), (100, 64, torch.bfloat16), (128, 128, torch.bfloat16),
                   (128, 32, torch.bfloat16), (1024, 64, torch.bfloat16), (128, 40, torch.bfloat16),
                   (128, 64, torch.float16)):
    q = torch.randn(8, 4, T, D, device='cuda', dtype=dt, requires_grad=True)
    k = torch.randn(8, 4, T, D, device='cuda', dtype=dt, requires_grad=True)
    v = torch.randn(8, 4, T, D, device='cuda', dtype=dt, requires_grad=True)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    print(f"T={T} D={D} {dt}: {used()}")
    torch.cuda.reset_peak_memory_stats()
    a.sum().backward()
    print(f"T={T} D={D} {dt} backward: {used()} {peak()}")
    del a, q, k, v
print(f"end: {used()}")
