# nn.MultiheadAttention under torch.autocast('cuda', dtype=torch.bfloat16)
# in training: the linears cast their weights and inputs to bfloat16,
# bmm and baddbmm run in bfloat16, softmax in float32 (a cast up),
# scaled_dot_product_attention takes cuDNN; forward and backward, with
# and without need_weights, a bool mask, batch_first; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4, device='cuda')
x = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
with torch.autocast('cuda', dtype=torch.bfloat16):
    out, w = mha(x, x, x)
print(f"autocast weights: {used()} {out.dtype} {w.dtype}")
torch.cuda.reset_peak_memory_stats()
out.float().sum().backward()
print(f"autocast weights backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
with torch.autocast('cuda', dtype=torch.bfloat16):
    out, _ = mha(x, x, x, need_weights=False)
print(f"autocast sdpa: {used()} {out.dtype}")
torch.cuda.reset_peak_memory_stats()
out.float().sum().backward()
print(f"autocast sdpa backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
causal = torch.ones(128, 128, device='cuda', dtype=torch.bool).triu(1)
with torch.autocast('cuda', dtype=torch.bfloat16):
    out, w = mha(x, x, x, attn_mask=causal)
print(f"autocast mask: {used()}")
torch.cuda.reset_peak_memory_stats()
out.float().sum().backward()
print(f"autocast mask backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
mhb = nn.MultiheadAttention(256, 4, batch_first=True, device='cuda')
xb = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
with torch.autocast('cuda', dtype=torch.bfloat16):
    out, _ = mhb(xb, xb, xb, need_weights=False)
    loss = out.float().sum()
print(f"autocast batch_first: {used()}")
torch.cuda.reset_peak_memory_stats()
loss.backward()
print(f"autocast batch_first backward: {used()} {peak()}")
del out, loss
mhb.eval()
with torch.no_grad(), torch.autocast('cuda', dtype=torch.bfloat16):
    out, w = mhb(xb, xb, xb)
print(f"autocast eval no_grad: {used()}")
del out, w, mha, mhb, x, xb, causal
print(f"end: {used()}")
