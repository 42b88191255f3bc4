# Advanced indexing and index_select, forward and backward: x[idx]'s
# backward is index_put_ with accumulate into zeros (on the GPU it sorts
# the indices, with CUB's scratch), index_select's is index_add_ into
# zeros; a list index is copied to the GPU first; the in-place index ops.
import torch

x = torch.rand(1024, 1024, device='cuda', requires_grad=True)
idx = torch.tensor([0, 5, 7, 1000], device='cuda')
idx2 = torch.tensor([3, 3, 9, 1], device='cuda')
r = x[idx]
print(tuple(r.shape), r.grad_fn.name())
r.sum().backward()
del r
x.grad = None
r = x[[0, 2]]
r.sum().backward()
del r
x.grad = None
r = x[idx, :]
r.sum().backward()
del r
x.grad = None
r = x[:, idx]
print(tuple(r.shape), r.stride())
r.sum().backward()
del r
x.grad = None
r = x[idx, idx2]
print(tuple(r.shape), r.grad_fn.name())
r.sum().backward()
del r
x.grad = None
r = x[idx]
r.backward(torch.ones_like(r))
del r
x.grad = None
i1 = torch.randint(0, 1024, (1,), device='cuda')
r = x[i1]
r.sum().backward()
del r, i1
x.grad = None
i100 = torch.randint(0, 1024, (100,), device='cuda')
r = x[i100]
r.sum().backward()
del r, i100
x.grad = None
i512 = torch.randint(0, 1024, (512,), device='cuda')
r = x[i512]
r.sum().backward()
del r, i512
x.grad = None
i2k = torch.randint(0, 1024, (2048,), device='cuda')
r = x[i2k]
r.sum().backward()
del r, i2k
x.grad = None
i4k = torch.randint(0, 1024, (4096,), device='cuda')
r = x[i4k]
r.sum().backward()
del r, i4k
x.grad = None
i64k = torch.randint(0, 1024, (65536,), device='cuda')
r = x[:, :16][i64k]
r.sum().backward()
del r, i64k
x.grad = None
r = torch.index_select(x, 0, idx)
print(tuple(r.shape), r.grad_fn.name())
r.sum().backward()
del r
x.grad = None
r = x.index_select(1, idx)
print(tuple(r.shape), r.stride(), r.grad_fn.name())
r.sum().backward()
del r
x.grad = None
t = torch.zeros(1024, 1024, device='cuda')
src = torch.ones(4, 1024, device='cuda')
t.index_add_(0, idx, src)
t.index_copy_(0, idx, src)
pos = torch.zeros(4, 1024, dtype=torch.long, device='cuda')
t.scatter_(0, pos, src)
t.scatter_add_(0, pos, src)
g = t.gather(0, pos)
del g
y = x * 1
r = y.index_add(0, idx, src)
r.sum().backward()
del r, y
x.grad = None
print(torch.cuda.memory_allocated())
