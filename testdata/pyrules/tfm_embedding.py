# nn.Embedding and F.embedding: forward is one new tensor (indices'
# shape + [dim]); autograd saves the indices; backward makes the weight's
# gradient (zeros of the weight's shape), directly for up to 3072 indices,
# else after sorting the indices (their temporaries, in order); `--events`.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
emb = nn.Embedding(1024, 256, device='cuda')
print(f"weight: {used()}")
idx = torch.randint(0, 1024, (8, 128), device='cuda')
y = emb(idx)
print(f"forward: {used()} {y.grad_fn.name()}")
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"backward: {used()} {peak()}")
del y, g
y = emb(idx)
torch.cuda.reset_peak_memory_stats()
y.backward(torch.ones_like(y))
print(f"accumulated: {used()} {peak()}")
del y
emb.weight.grad = None
pos = torch.arange(128, device='cuda')
y = emb(pos)
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"arange, sum: {used()} {peak()}")
del y, pos
emb.weight.grad = None
big = torch.randint(0, 1024, (8, 512), device='cuda')
y = emb(big)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"4096 indices: {used()} {peak()}")
del y, g
emb.weight.grad = None
big = torch.randint(0, 1024, (3073,), device='cuda')
y = emb(big)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"3073 indices: {used()} {peak()}")
del y, g, big
emb.weight.grad = None
vocab = nn.Embedding(50000, 512, device='cuda')
big = torch.randint(0, 50000, (16, 1024), device='cuda')
y = vocab(big)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"16384 indices of 50000: {used()} {peak()}")
del y, g, vocab, big
y = F.embedding(idx, emb.weight)
print(f"F.embedding: {used()}")
del y
with torch.no_grad():
    y = emb(idx)
print(f"no_grad: {used()} {y.requires_grad}")
del y
emb2 = nn.Embedding(1000, 64).cuda()
print(f"cpu then cuda: {used()}")
y = emb2(idx.clamp(max=999))
y.sum().backward()
print(f"clamped: {used()}")
del y, emb2, emb, idx
print(f"end: {used()}")
