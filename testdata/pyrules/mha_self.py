# nn.MultiheadAttention's self-attention in float32 through
# F.multi_head_attention_forward (training, or eval with grad): one packed
# in-projection (the output reordered to [3, L, N, E] by a contiguous
# copy), the heads as views; need_weights=True (the default): q scaled,
# bmm, softmax, bmm, the weights averaged over heads (or not);
# need_weights=False: scaled_dot_product_attention; the out-projection;
# forward and backward, sequence-first and batch_first, an input that
# needs no grad, an unbatched input; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4).cuda()
print(f"made: {used()} {[n for n, _ in mha.named_parameters()]}")
x = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
out, w = mha(x, x, x)
print(f"weights: {used()} {tuple(out.shape)} {tuple(w.shape)}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"weights backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
out, w = mha(x, x, x, average_attn_weights=False)
print(f"per head: {used()} {tuple(w.shape)}")
del w
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"per head backward: {used()} {peak()}")
del out
x.grad = None
mha.zero_grad()
out, w = mha(x, x, x, need_weights=False)
print(f"sdpa: {used()} {w}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"sdpa backward: {used()} {peak()}")
del out, w
x.grad = None
mha.zero_grad()
y = torch.randn(128, 8, 256, device='cuda')
out, w = mha(y, y, y)
print(f"input without grad: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"input without grad backward: {used()} {peak()}")
del out, w
mha.zero_grad()
mhb = nn.MultiheadAttention(256, 4, batch_first=True, device='cuda')
xb = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
out, w = mhb(xb, xb, xb)
print(f"batch_first: {used()} {tuple(out.shape)} {out.stride()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"batch_first backward: {used()} {peak()}")
del out, w
xb.grad = None
mhb.zero_grad()
out, w = mhb(xb, xb, xb, need_weights=False)
print(f"batch_first sdpa: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"batch_first sdpa backward: {used()} {peak()}")
del out, w
xb.grad = None
mhb.zero_grad()
mhb.eval()
out, w = mhb(xb, xb, xb)
print(f"eval with grad: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"eval with grad backward: {used()} {peak()}")
del out, w
xb.grad = None
mhb.zero_grad()
u = torch.randn(128, 256, device='cuda', requires_grad=True)
out, w = mha(u, u, u)
print(f"unbatched: {used()} {tuple(out.shape)} {tuple(w.shape)}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"unbatched backward: {used()} {peak()}")
del out, w, u
mha.zero_grad()
del mha, mhb, x, xb, y
print(f"end: {used()}")
