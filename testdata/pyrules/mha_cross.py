# nn.MultiheadAttention between two sequences in float32 training:
# key is value (encoder-decoder): the packed weight split into q and kv
# projections, the kv output reordered to [2, S, N, E] by a contiguous
# copy; key is not value: three linears over chunks of the weight;
# kdim/vdim: q_proj_weight, k_proj_weight, v_proj_weight and three
# linears; bias=False; forward and backward; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
torch.manual_seed(0)
mha = nn.MultiheadAttention(256, 4, device='cuda')
q = torch.randn(128, 8, 256, device='cuda', requires_grad=True)
mem = torch.randn(64, 8, 256, device='cuda', requires_grad=True)
out, w = mha(q, mem, mem)
print(f"encoder-decoder: {used()} {tuple(w.shape)}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"encoder-decoder backward: {used()} {peak()}")
del out, w
q.grad = mem.grad = None
mha.zero_grad()
out, _ = mha(q, mem, mem, need_weights=False)
print(f"encoder-decoder sdpa: {used()}")
del out
v = torch.randn(64, 8, 256, device='cuda', requires_grad=True)
out, w = mha(q, mem, v)
print(f"three inputs: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"three inputs backward: {used()} {peak()}")
del out, w, mha
q.grad = mem.grad = v.grad = None
kv = nn.MultiheadAttention(256, 4, kdim=128, vdim=96, device='cuda')
print(f"kdim vdim: {used()} {[n for n, _ in kv.named_parameters()]}")
k2 = torch.randn(64, 8, 128, device='cuda', requires_grad=True)
v2 = torch.randn(64, 8, 96, device='cuda', requires_grad=True)
out, w = kv(q, k2, v2)
print(f"kdim vdim forward: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"kdim vdim backward: {used()} {peak()}")
del out, w
q.grad = None
kv.zero_grad()
out, _ = kv(q, k2, v2, need_weights=False)
print(f"kdim vdim sdpa: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"kdim vdim sdpa backward: {used()} {peak()}")
del out, kv, k2, v2
q.grad = mem.grad = None
nb = nn.MultiheadAttention(256, 4, bias=False, device='cuda')
print(f"no bias: {used()} {[n for n, _ in nb.named_parameters()]}")
out, w = nb(q, q, q)
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"no bias backward: {used()} {peak()}")
del out, w, nb, q, mem
print(f"end: {used()}")
