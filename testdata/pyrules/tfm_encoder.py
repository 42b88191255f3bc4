# nn.TransformerEncoderLayer in float32: training forward and backward
# (self-attention with need_weights=False, so SDPA; dropout; the
# feed-forward Linear-activation-Dropout-Linear; LayerNorm after each
# block, or before with norm_first=True), relu and gelu, under bf16
# autocast, and eval under no_grad (the fast path,
# torch._transformer_encoder_layer_fwd); `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, device='cuda')
print(f"made: {used()} {len(list(layer.parameters()))}")
x = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
y = layer(x)
print(f"post-norm: {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"post-norm backward: {used()} {peak()}")
del y
x.grad = None
layer.zero_grad()
pre = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, activation='gelu', norm_first=True, batch_first=True, device='cuda')
xb = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
y = pre(xb)
print(f"pre-norm gelu: {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pre-norm gelu backward: {used()} {peak()}")
del y
xb.grad = None
pre.zero_grad()
causal = nn.Transformer.generate_square_subsequent_mask(128, device='cuda')
y = pre(xb, src_mask=causal, is_causal=True)
print(f"causal: {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"causal backward: {used()} {peak()}")
del y
xb.grad = None
pre.zero_grad()
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = pre(xb)
print(f"autocast: {used()} {y.dtype}")
torch.cuda.reset_peak_memory_stats()
y.float().sum().backward()
print(f"autocast backward: {used()} {peak()}")
del y
xb.grad = None
pre.zero_grad()
pre.eval()
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = pre(xb)
print(f"eval no_grad: {used()} {peak()}")
del y
layer.eval()
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = layer(x)
print(f"eval sequence first: {used()} {peak()}")
del y
bf = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, batch_first=True, device='cuda').eval()
pad = torch.zeros(8, 128, device='cuda', dtype=torch.bool)
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = bf(xb, src_key_padding_mask=pad)
print(f"eval padding mask: {used()} {peak()}")
del y, layer, pre, bf, x, xb, causal, pad
print(f"end: {used()}")
