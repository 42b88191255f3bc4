# A transformer block as train_gpt writes it, forward and backward, in
# float32 and under bf16 autocast: LayerNorm, qkv Linear split into
# heads, causal SDPA, the heads joined (.contiguous() of the efficient
# kernel's output is the output itself), Dropout, GELU MLP; `--events`.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
ln = nn.LayerNorm(256).cuda()
qkv = nn.Linear(256, 768).cuda()
proj = nn.Linear(256, 256).cuda()
drop = nn.Dropout(0.1)
x = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
q, k, v = qkv(ln(x)).split(256, dim=2)
print(f"qkv: {used()}")
q = q.view(8, 128, 4, 64).transpose(1, 2)
k = k.view(8, 128, 4, 64).transpose(1, 2)
v = v.view(8, 128, 4, 64).transpose(1, 2)
a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(f"sdpa: {used()} {a.stride()}")
y = x + drop(proj(a.transpose(1, 2).contiguous().view(8, 128, 256)))
print(f"block: {used()}")
del q, k, v, a
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"backward: {used()} {peak()}")
del y
x.grad = None
with torch.autocast('cuda', dtype=torch.bfloat16):
    q, k, v = qkv(ln(x)).split(256, dim=2)
    q = q.view(8, 128, 4, 64).transpose(1, 2)
    k = k.view(8, 128, 4, 64).transpose(1, 2)
    v = v.view(8, 128, 4, 64).transpose(1, 2)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    y = x + drop(proj(a.transpose(1, 2).contiguous().view(8, 128, 256)))
    del q, k, v, a
print(f"autocast: {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"autocast backward: {used()} {peak()}")
del y
print(f"end: {used()}")
