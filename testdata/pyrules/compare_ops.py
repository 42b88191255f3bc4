# Every comparison makes a bool tensor of the broadcast shape, with a
# tensor or a number on either side; none is recorded by autograd.
import torch

t = torch.ones(256, 1024, device="cuda")
r = torch.ones(1024, device="cuda")
a = t != 2
b = t < r
c = 0.5 <= t
d = t > 1
e = r >= t
f = t.eq(r)
del a, b, c, d, e, f
w = torch.ones(256, 1024, device="cuda", requires_grad=True)
g = w == 1
print(g.requires_grad, torch.cuda.memory_allocated())
