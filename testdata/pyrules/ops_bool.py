# Boolean ops: any/all over every element and along a dimension (a bool
# output; a large input's reduction buffer), ~ & | ^ and
# logical_and/or/not/xor (bool, or the integer type for the bitwise ops
# of integers), with numbers, broadcast, in place; their values; the
# errors of a float operand; autograd records none of them.
import torch

x = torch.rand(1024, 1024, device='cuda')
b = x > 0.5
c = x < 0.25
r = b.any()
print(r.dtype, r.shape, r.requires_grad)
r = b.all()
r = torch.any(x)
r = torch.all(x)
r = b.any(1)
r = b.all(dim=1, keepdim=True)
print(r.shape, r.dtype)
r = x.any(-1)
r = b.any(0)
r = torch.all(b, 0)
del r
n = ~b
n = b & c
n = b | c
n = b ^ c
n = torch.logical_and(b, c)
n = torch.logical_or(x, c)
n = torch.logical_not(x)
n = torch.logical_xor(b, c)
n = b.logical_not()
n = b.logical_and(c)
n = b & True
n = b & c[0]
n = c[:, :1] | b
print(n.shape, n.dtype)
i = torch.arange(1 << 20, device='cuda')
n = i & 3
n = i | i
n = ~i
n = 5 ^ i
n = b & i.view(1024, 1024)
print(n.dtype)
n = torch.bitwise_and(i, 3)
n = torch.bitwise_or(i, i)
n = torch.bitwise_xor(i, 1)
n = torch.bitwise_not(i)
del n
b &= c
b |= c
b ^= c
b.logical_not_()
b.logical_and_(c)
b.logical_or_(c)
i &= 7
i |= 8
h = torch.rand(1024, 1024, device='cuda', dtype=torch.float16)
n = torch.logical_and(h, x)
r = h.any()
r = h.all(1)
del n, r
t = torch.arange(8, device='cuda')
print((t & 3).tolist(), (t | 1).tolist(), (t ^ 2).tolist(), (~t).tolist(), (6 & t).tolist())
print(((t > 2) & (t < 6)).tolist(), ((t < 2) | (t > 6)).tolist(), (~(t > 3)).tolist(), ((t > 2) ^ (t > 5)).tolist())
print(torch.logical_and(t, t - 2).tolist(), torch.logical_or(t > 6, t < 1).tolist(), torch.logical_not(t).tolist(), torch.logical_xor(t, t > 3).tolist())
print((t > 3).any().item(), (t > 3).all().item(), (t >= 0).all().item(), (t > 9).any().item(), t.any().item(), t.all().item())
print((t.view(2, 4) > 2).any(1).tolist(), (t.view(2, 4) > 2).all(0).tolist(), torch.any(t.view(2, 4) > 4, dim=1, keepdim=True).tolist())
f = x & b
f = ~x
y = torch.rand(1024, 1024, device='cuda', requires_grad=True)
n = torch.logical_and(y, b)
r = y.any()
print(n.requires_grad, r.requires_grad, (y > 0.5).all(1).requires_grad)
