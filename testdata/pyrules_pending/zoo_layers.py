# The layers the model zoo (testdata/models/zoo) needed, modelled from
# PyTorch 2.11's source and labelled estimated until this script is
# recorded: F.pairwise_distance and nn.PairwiseDistance (keepdim too),
# nn.TripletMarginLoss (mean, sum, none and swap=True) trained forward
# and backward, and under no_grad; nn.EmbeddingBag and F.embedding_bag
# (sum, mean of a 2-d input, max) trained and under no_grad;
# torch.tril_indices and triu_indices.
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
