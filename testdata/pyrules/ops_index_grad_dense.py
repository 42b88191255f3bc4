# Advanced indexing's backward with a gradient that is not broadcast
# (index_put_ copies no values) along a later dimension, and
# index_select's backward along dimension 1 (a later part of this script
# indexed past a dimension's end and was cut).
import torch

x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
idx = torch.tensor([0, 5, 7, 1000, 5, 3], device='cuda')
r = x[:, idx]
r.backward(torch.ones_like(r))
del r
x.grad = None
r = x.index_select(1, idx)
r.backward(torch.ones_like(r))
del r
x.grad = None
