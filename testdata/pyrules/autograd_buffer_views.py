# More of autograd's InputBuffer (autograd_buffer.py has the rule): which
# gradients PyTorch makes as views, met by a second gradient. Rows of 1024
# float32 (4 KiB a row), each case its own size; --events.
import torch
import torch.nn.functional as F

# a broadcast operand's summed gradient: a view when leading dimensions
# went (r of [1024]), not when they were kept (r of [1, 1024])
x = torch.ones(512, 1024, device='cuda', requires_grad=True)
r = torch.ones(1024, device='cuda', requires_grad=True)
q = r * 2
((x + q) * 3 + (x * 2 + q) * 5).sum().backward()
r = torch.ones(1, 1024, device='cuda', requires_grad=True)
q = r * 2
((x + q) * 3 + (x * 2 + q) * 5).sum().backward()
del x, r, q
# cat of one tensor twice: each piece's gradient is a view
x = torch.ones(768, 1024, device='cuda', requires_grad=True)
y = x * 2
(torch.cat([y, y]) * 3).sum().backward()
y = x * 2
(torch.cat([y, y], dim=1) * 3).sum().backward()
del x, y
# a residual around a linear of a 3-d input, with and without a bias
x = torch.ones(4, 256, 1024, device='cuda', requires_grad=True)
w = torch.ones(1024, 1024, device='cuda')
b = torch.ones(1024, device='cuda')
y = x * 2
((y + F.linear(y, w, b)) * 3).sum().backward()
y = x * 2
((F.linear(y, w) + y) * 3).sum().backward()
y = x * 2
((y @ w) * 3 + (y @ w) * 5).sum().backward()
del x, y, w, b
# einsum: an operand used twice
x = torch.ones(1280, 1024, device='cuda', requires_grad=True)
w1 = torch.ones(1024, 512, device='cuda')
y = x * 2
(torch.einsum('ij,jk->ik', y, w1) * 3 + torch.einsum('ij,jk->ik', y, w1) * 5).sum().backward()
del x, y, w1
# a vector times a matrix, the vector used twice
v = torch.ones(1536 * 1024, device='cuda', requires_grad=True)
m = torch.ones(1536 * 1024, 2, device='cuda')
u = v * 2
((u @ m).sum() * 3 + (u * 5).sum()).backward()
del v, m, u
# mean and sum along a dim, then a second use
x = torch.ones(1792, 1024, device='cuda', requires_grad=True)
y = x * 2
(y.mean(dim=1) * 3).sum().backward(retain_graph=True)
(y.sum(dim=0) * 3 + (y * 5).sum(dim=0)).sum().backward()
del x, y
