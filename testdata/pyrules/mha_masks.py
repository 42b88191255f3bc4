# nn.MultiheadAttention's masks in float32 training: a bool attn_mask is
# made a float one (zeros_like, masked_fill_ with -inf) at forward's
# start; a 2-d mask is unsqueezed to [1, L, S], a 3-d one is
# [N * heads, L, S]; need_weights=True adds it with baddbmm;
# key_padding_mask [N, S] is made float too, expanded to every head and
# reshaped (a copy), and added to attn_mask; need_weights=False gives
# the mask to scaled_dot_product_attention; is_causal with a mask and
# need_weights=False drops the mask for SDPA's causal kernel; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4, device='cuda')
x = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
causal = torch.ones(128, 128, device='cuda', dtype=torch.bool).triu(1)
out, w = mha(x, x, x, attn_mask=causal)
print(f"bool mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"bool mask backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
fmask = torch.zeros(128, 128, device='cuda')
out, w = mha(x, x, x, attn_mask=fmask)
print(f"float mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"float mask backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
mask3 = torch.zeros(32, 128, 128, device='cuda')
out, w = mha(x, x, x, attn_mask=mask3)
print(f"3-d mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"3-d mask backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
pad = torch.zeros(8, 128, device='cuda', dtype=torch.bool)
out, w = mha(x, x, x, key_padding_mask=pad)
print(f"padding mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"padding mask backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
out, w = mha(x, x, x, key_padding_mask=pad, attn_mask=causal)
print(f"both masks: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"both masks backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
out, _ = mha(x, x, x, attn_mask=causal, need_weights=False)
print(f"sdpa bool mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"sdpa bool mask backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
out, _ = mha(x, x, x, attn_mask=mask3, need_weights=False)
print(f"sdpa 3-d mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"sdpa 3-d mask backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
out, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
print(f"sdpa padding mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"sdpa padding mask backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
out, _ = mha(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)
print(f"is_causal: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"is_causal backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
out, w = mha(x, x, x, attn_mask=causal, is_causal=True)
print(f"is_causal with weights: {used()}")
del out, w
try:
    mha(x, x, x, is_causal=True)
except RuntimeError as e:
    print(f"is_causal alone: {str(e)[:40]}")
del mha, x, causal, fmask, mask3, pad
print(f"end: {used()}")
