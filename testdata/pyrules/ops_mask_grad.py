# Indexing by a bool mask under autograd: the mask's nonzero is kept by
# IndexBackward0 (its columns are the indices), and backward puts the
# gradient back with index_put_ (accumulate); masked_select's backward;
# a loss over the masked elements.
import torch

x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
m = torch.arange(1024, device='cuda') % 4 == 0
y = x[m]
print(y.grad_fn.name(), y.shape)
y.sum().backward()
del y
x.grad = None
w = torch.arange(1024, device='cuda').view(32, 32) < 100
v = torch.rand(32, 32, device='cuda', requires_grad=True)
y = v[w]
y.sum().backward()
del y
v.grad = None
y = torch.masked_select(v, w)
print(y.grad_fn.name(), y.shape)
y.sum().backward()
del y
v.grad = None
t = torch.zeros(32, 32, device='cuda')
loss = ((v[w] - t[w]) ** 2).mean()
loss.backward()
print(v.grad.shape)
del loss
