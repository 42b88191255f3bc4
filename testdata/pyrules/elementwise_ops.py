# Elementwise ops beyond add and mul, forward and backward: what each
# allocates and what autograd saves until backward (records the rules
# sub/rsub follow add's, true division by a number follows mul's by a
# number, and sigmoid/tanh/exp save their result as relu does).
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated()
x = torch.randn(N, device='cuda', requires_grad=True)
w = torch.randn(N, device='cuda', requires_grad=True)
d = x - w
r = 1 - x
s = x - 2
print("sub:", used())
loss = (d + r + s).sum()
loss.backward()
print("sub backward:", used())
del d, r, s, loss
x.grad = None
w.grad = None
q = x / 2
loss = q.sum()
loss.backward()
print("div by number:", used())
del q, loss
x.grad = None
a = x.sigmoid()
b = torch.tanh(x)
c = torch.exp(x)
print("sigmoid, tanh, exp:", used())
loss = (a + b + c).sum()
del a, b, c
print("graph kept:", used())
loss.backward()
print("after backward:", used())
del loss
x.grad = None
with torch.no_grad():
    e = x - w
    f = x / 3
    g = torch.sigmoid(x)
print("no_grad:", used())
del e, f, g
torch.cuda.empty_cache()
print("end:", used())
