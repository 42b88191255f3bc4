# The autograd API: torch.autograd.grad (new tensors, .grad untouched;
# only the nodes it needs run; retain_graph), .backward(gradient) of a
# tensor that is not a scalar, gradient accumulation over several
# backward() calls, no_grad/enable_grad/inference_mode/set_grad_enabled
# as context managers, as a call and as a decorator, requires_grad_ and
# detach_. Recorded with --events.
import torch

MiB = 2**20
N = 1 << 20  # 4 MiB of float32


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


x = torch.ones(N, device='cuda', requires_grad=True)
w = torch.ones(N, device='cuda', requires_grad=True)
y = (x * w).relu().sum()
show("graph")
gx, = torch.autograd.grad(y, x, retain_graph=True)
show("grad(y, x, retain)")
print(x.grad is None, w.grad is None, tuple(gx.shape), gx.requires_grad)
gx, gw = torch.autograd.grad(y, [x, w])
show("grad(y, [x, w])")
print(x.grad is None, gw.requires_grad)
del gx, gw
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print(str(e)[:40])
del y
show("graph gone")
y = (x * w).relu().sum()
gx, = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones((), device='cuda'))
show("grad with grad_outputs")
del gx, y
z = x * w
g = torch.ones(N, device='cuda')
z.backward(g)
show("z.backward(g)")
del z
z = x * 2
z.backward(gradient=g)
show("accumulated")
del z, g
for _ in range(3):
    (x * w).sum().backward()
show("three more backward()")
x.grad = w.grad = None
with torch.no_grad():
    h = x * w
show("no_grad")
print(h.requires_grad, torch.is_grad_enabled())
del h
with torch.no_grad():
    with torch.enable_grad():
        h = x * w
    k = h * 2
show("enable_grad inside")
print(h.requires_grad, k.requires_grad)
del h, k
with torch.inference_mode():
    h = (x * w).relu()
show("inference_mode")
print(h.requires_grad)
del h
with torch.set_grad_enabled(False):
    h = x * w
print(h.requires_grad, torch.is_grad_enabled())
del h
torch.set_grad_enabled(False)
h = (x * w).relu()
show("set_grad_enabled(False)")
torch.set_grad_enabled(True)
print(h.requires_grad, torch.is_grad_enabled())
del h


@torch.no_grad()
def infer(a):
    return (a * w).relu()


h = infer(x)
show("@no_grad()")
print(h.requires_grad)
del h
u = torch.ones(N, device='cuda')
u.requires_grad_()
v = (u * w).relu()
show("requires_grad_() leaf")
v.detach_()
show("detach_() frees the graph")
print(v.requires_grad, v.grad_fn)
del u, v
show("all but the leaves")
