# More of the autograd API: torch.autograd.grad with respect to a
# tensor that is not a leaf, an input the output does not reach, a graph
# that saved nothing run twice, detach_() of a result whose graph holds
# a temporary, backward(gradient) of a leaf. Recorded with --events.
import torch

MiB = 2**20
N = 1 << 20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


x = torch.ones(N, device='cuda', requires_grad=True)
w = torch.ones(N, device='cuda', requires_grad=True)
h = x * w
y = (h * h).sum()
gh, = torch.autograd.grad(y, h, retain_graph=True)
show("grad(y, h)")
print(gh.shape, x.grad is None)
gx, gh2 = torch.autograd.grad(y, [x, h])
show("grad(y, [x, h])")
del gh, gx, gh2, y
u = torch.ones(N, device='cuda', requires_grad=True)
try:
    torch.autograd.grad((x * 2).sum(), [x, u])
except RuntimeError as e:
    print(str(e)[:50])
show("unused input")
s = x.sum()
s.backward()
s.backward()
show("sum twice")
del s
x.grad = None
v = (h.exp() * 2).sum()
show("graph of v")
v.detach_()
show("v.detach_()")
print(v.requires_grad, v.grad_fn)
del v, h
g = torch.ones(N, device='cuda')
x.backward(g)
show("leaf.backward(g)")
print(x.grad.data_ptr() == g.data_ptr())
del g
x.grad = w.grad = None
show("all but the leaves")
