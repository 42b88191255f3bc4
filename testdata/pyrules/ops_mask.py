# Boolean masks, whose results' sizes depend on the values: nonzero and
# argwhere (a count of the true values in a CUB reduction, a sync, the
# int64 output, CUB's select), indexing by a mask, masked_select and
# assignment through a mask, on masks whose values are known (ranges
# compared, constants).
import torch

z = torch.arange(12, device='cuda').view(3, 4)
n = torch.nonzero(z > 5)
print(n.tolist(), n.shape, n.dtype)
n = z.nonzero()
print(n.shape)
n = torch.argwhere(z > 20)
print(n.shape, n.tolist())
n = torch.nonzero(z % 3 == 0, as_tuple=True)
print(type(n).__name__, len(n), [t.tolist() for t in n])
n = (z > 8).nonzero(as_tuple=True)
del n
v = z[z > 5]
print(v.tolist())
v = torch.masked_select(z, z > 5)
print(v.tolist())
v = z.masked_select(torch.tensor([True, False, True, False], device='cuda'))
print(v.tolist())
v = z[torch.tensor([True, False, True], device='cuda')]
print(v.tolist(), v.shape)
v = z[z > 100]
print(v.shape, v.dtype)
del v
z[z > 5] = 0
print(z.tolist())
z[z == 0] = torch.tensor(7, device='cuda')
print(z.tolist())
z[torch.tensor([False, True, False], device='cuda')] = -1
print(z.tolist())
w = torch.arange(65536., device='cuda')
v = w[w >= 1000]
print(v.shape, v[:3].tolist())
n = (w < 4097).nonzero()
n = torch.nonzero(w.view(256, 256) > 100.5)
print(n.shape)
n = torch.nonzero(w)
del n, v
big = torch.ones(1024, 1024, device='cuda')
mz = torch.zeros(1024, 1024, dtype=torch.bool, device='cuda')
mo = torch.ones(1024, 1024, dtype=torch.bool, device='cuda')
n = mz.nonzero()
n = mo.nonzero()
n = torch.argwhere(big)
del n
v = big[mo]
v = big[mz]
v = torch.masked_select(big, mo)
v = big[mo[0]]
del v
big[mo] = 2.0
big[mz] = 3.0
big[mo] = torch.tensor(4.0, device='cuda')
print(big[0, :4].tolist())
