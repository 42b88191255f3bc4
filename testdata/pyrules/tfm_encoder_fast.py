# nn.TransformerEncoderLayer in eval without autograd: batch_first takes
# the fast path, torch._transformer_encoder_layer_fwd (layer norms whose
# statistics go at once, the fast multi-head attention, the residuals
# added in place, linear, the activation in place, linear), post- and
# pre-norm, relu and gelu, with a padding mask, a causal mask and both;
# sequence first, a float mask and training go through the modules;
# then post-norm training under bf16 autocast; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
post = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, batch_first=True, device='cuda').eval()
pre = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, activation='gelu', norm_first=True, batch_first=True, device='cuda').eval()
x = torch.randn(8, 128, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = post(x)
print(f"post-norm: {used()} {peak()}")
del y
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = pre(x)
print(f"pre-norm: {used()} {peak()}")
del y
pad = torch.zeros(8, 128, device='cuda', dtype=torch.bool)
causal = torch.ones(128, 128, device='cuda', dtype=torch.bool).triu(1)
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = pre(x, src_key_padding_mask=pad)
print(f"padding mask: {used()} {peak()}")
del y
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = post(x, src_mask=causal)
print(f"causal mask: {used()} {peak()}")
del y
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = post(x, src_mask=causal, src_key_padding_mask=pad)
print(f"both masks: {used()} {peak()}")
del y
torch.cuda.reset_peak_memory_stats()
with torch.inference_mode():
    y = pre(x)
print(f"inference_mode: {used()} {peak()}")
del y
fmask = torch.zeros(128, 128, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = post(x, src_mask=fmask)
print(f"float mask: {used()} {peak()}")
del y
seq = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, device='cuda').eval()
xs = torch.randn(128, 8, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = seq(xs)
print(f"sequence first: {used()} {peak()}")
del y
seq.train()
xs.requires_grad_()
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = seq(xs)
print(f"autocast: {used()} {y.dtype}")
torch.cuda.reset_peak_memory_stats()
y.float().sum().backward()
print(f"autocast backward: {used()} {peak()}")
del y, post, pre, seq, x, xs, pad, causal, fmask
print(f"end: {used()}")
