# nn.MultiheadAttention(dropout=0.1) in training: need_weights=True drops
# out the softmaxed weights (F.dropout: a bool mask, then the output),
# need_weights=False passes dropout_p to scaled_dot_product_attention;
# eval turns it off; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4, dropout=0.1, device='cuda')
x = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
out, w = mha(x, x, x)
print(f"dropout weights: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"dropout weights backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
out, _ = mha(x, x, x, need_weights=False)
print(f"dropout sdpa: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"dropout sdpa backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
mha.eval()
out, w = mha(x, x, x)
print(f"eval: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"eval backward: {used()} {peak()}")
del out, w, mha, x
print(f"end: {used()}")
