# nn.MultiheadAttention's fast path (torch._native_multi_head_attention)
# in float32: batch_first self-attention in eval under no_grad or
# inference_mode. need_weights=False without a mask and a head dim that
# is a multiple of 8: linear, scaled_dot_product_attention, linear;
# otherwise the projection (a matmul without the bias), the bias added
# and q scaled into q, k and v ([3, N, heads, L, head dim]), q @ k^T,
# softmax in place (a mask: made bool, masked softmax), the context
# written over q, reordered, the out-projection; need_weights averages
# the weights over heads (sum, then divided in place); `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4, batch_first=True, device='cuda').eval()
x = torch.randn(8, 128, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x)
print(f"weights: {used()} {peak()} {tuple(w.shape)}")
del out, w
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x, average_attn_weights=False)
print(f"per head: {used()} {peak()} {tuple(w.shape)}")
del out, w
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x, need_weights=False)
print(f"sdpa: {used()} {peak()} {w}")
del out, w
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    out, _ = mha(x, x, x, need_weights=False)
print(f"inference_mode: {used()} {peak()}")
del out
pad = torch.zeros(8, 128, device='cuda', dtype=torch.bool)
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x, key_padding_mask=pad)
print(f"padding mask: {used()} {peak()}")
del out, w
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, _ = mha(x, x, x, key_padding_mask=pad, need_weights=False)
print(f"padding mask no weights: {used()} {peak()}")
del out
causal = torch.ones(128, 128, device='cuda', dtype=torch.bool).triu(1)
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x, attn_mask=causal)
print(f"attn mask: {used()} {peak()}")
del out, w
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x, attn_mask=causal, key_padding_mask=pad)
print(f"both masks: {used()} {peak()}")
del out, w
mhs = nn.MultiheadAttention(256, 4, device='cuda').eval()
xs = torch.randn(128, 8, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mhs(xs, xs, xs)
print(f"sequence first no_grad: {used()} {peak()}")
del out, w
mh3 = nn.MultiheadAttention(240, 4, batch_first=True, device='cuda').eval()
x3 = torch.randn(8, 128, 240, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, _ = mh3(x3, x3, x3, need_weights=False)
print(f"head dim 60: {used()} {peak()}")
del out
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, _ = mha(x, x, x.clone(), need_weights=False)
print(f"not self-attention: {used()} {peak()}")
del out
mha.train()
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    out, w = mha(x, x, x)
print(f"training no_grad: {used()} {peak()}")
del out, w, mha, mhs, mh3, x, xs, x3, pad, causal
print(f"end: {used()}")
