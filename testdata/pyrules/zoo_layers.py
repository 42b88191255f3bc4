# The layers the model zoo (testdata/models/zoo) needed, modelled from
# PyTorch 2.11's source and labelled estimated until this script is
# recorded: F.pairwise_distance and nn.PairwiseDistance (keepdim too),
# nn.TripletMarginLoss (mean, sum, none and swap=True) trained forward
# and backward, and under no_grad; nn.EmbeddingBag and F.embedding_bag
# (sum, mean of a 2-d input, max) trained and under no_grad;
# torch.tril_indices and triu_indices; nn.Transformer trained, its decoder
# in eval with a bool causal mask, attention with a mask of 23 columns.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
a, p, n = (torch.randn(1000, 256, device='cuda', requires_grad=True) for _ in range(3))
print(f"inputs: {used()}")
torch.cuda.reset_peak_memory_stats()
d = F.pairwise_distance(a, p)
print(f"pairwise_distance: {used()} {peak()} {d.grad_fn.name()}")
d.sum().backward()
print(f"pairwise_distance backward: {used()} {peak()}")
del d
a.grad = p.grad = None
d = nn.PairwiseDistance(p=1.0, keepdim=True)(a, p)
print(f"PairwiseDistance p=1 keepdim: {used()} {d.shape}")
del d
for reduction in ('mean', 'sum', 'none'):
    torch.cuda.reset_peak_memory_stats()
    loss = nn.TripletMarginLoss(margin=1.0, reduction=reduction)(a, p, n)
    print(f"TripletMarginLoss {reduction}: {used()} {peak()} {loss.grad_fn.name()}")
    loss.sum().backward()
    print(f"TripletMarginLoss {reduction} backward: {used()} {peak()}")
    del loss
    a.grad = p.grad = n.grad = None
loss = F.triplet_margin_loss(a, p, n, swap=True)
print(f"triplet_margin_loss swap: {used()} {peak()}")
loss.backward()
print(f"triplet_margin_loss swap backward: {used()} {peak()}")
del loss
with torch.no_grad():
    loss = nn.TripletMarginLoss()(a, p, n)
    print(f"TripletMarginLoss no_grad: {used()} {peak()}")
del loss, a, p, n
# nn.EmbeddingBag (sum with offsets, mean of a 2-d input, max) trained
# forward and backward, under no_grad; torch.tril_indices on the host
# and on the GPU
bag = nn.EmbeddingBag(10131, 16, mode='sum').cuda()
idx = torch.randint(0, 10131, (387,), device='cuda')
off = torch.arange(0, 387, 3, device='cuda')
print(f"EmbeddingBag: {used()} {bag}")
for mode in ('sum', 'mean', 'max'):
    torch.cuda.reset_peak_memory_stats()
    y = F.embedding_bag(idx, bag.weight, off, mode=mode) if mode != 'mean' else F.embedding_bag(idx.view(129, 3), bag.weight, mode=mode)
    print(f"embedding_bag {mode}: {used()} {peak()} {y.grad_fn.name()}")
    y.sum().backward()
    print(f"embedding_bag {mode} backward: {used()} {peak()}")
    del y
    bag.weight.grad = None
with torch.no_grad():
    y = bag(idx, off)
    print(f"EmbeddingBag no_grad: {used()} {peak()}")
del y
li = torch.tril_indices(27, 27, offset=-1)
print(f"tril_indices: {used()} {li.shape} {li.device}")
li = torch.triu_indices(300, 300, offset=1, device='cuda')
print(f"triu_indices cuda: {used()} {li.shape}")
del li
# nn.Transformer (2 + 2 layers, batch_first) trained with a float causal
# mask and padding masks; the decoder alone in eval with a bool causal
# mask of 5 positions (the attention's fast path at a length that is not
# a multiple of 8); attention with a mask of 23 columns (padded to 24)
m = nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=128, batch_first=True).cuda()
src, tgt = torch.randn(5, 23, 64, device='cuda'), torch.randn(5, 19, 64, device='cuda')
mask = nn.Transformer.generate_square_subsequent_mask(19, device='cuda')
print(f"Transformer: {used()}")
torch.cuda.reset_peak_memory_stats()
out = m(src, tgt, tgt_mask=mask, src_key_padding_mask=torch.zeros(5, 23, dtype=torch.bool, device='cuda'))
print(f"Transformer forward: {used()} {peak()} {out.grad_fn.name()}")
out.sum().backward()
print(f"Transformer backward: {used()} {peak()}")
del out
m.eval()
with torch.no_grad():
    y = m.decoder(tgt[:1, :5], m.encoder(src[:1]), tgt_mask=mask[:5, :5] == float('-inf'))
    print(f"decoder eval: {used()} {peak()}")
q = torch.randn(2, 4, 23, 16, device='cuda')
torch.cuda.reset_peak_memory_stats()
a = F.scaled_dot_product_attention(q, q, q, attn_mask=torch.zeros(2, 4, 23, 23, device='cuda'))
print(f"sdpa mask 23: {used()} {peak()}")
