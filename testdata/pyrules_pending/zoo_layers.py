# The layers the model zoo (testdata/models/zoo) needed, modelled from
# PyTorch 2.11's source and labelled estimated until this script is
# recorded: F.pairwise_distance and nn.PairwiseDistance (keepdim too),
# nn.TripletMarginLoss (mean, sum, none and swap=True) trained forward
# and backward, and under no_grad.
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
