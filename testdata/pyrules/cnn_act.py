# The CNN layers beside convolution and pooling, on the GPU: LeakyReLU
# and F.leaky_relu (out of place and in place), ReLU(inplace=True) and
# Tensor.relu_() on a tensor made by an op and on a leaf (the error),
# LeakyReLU(inplace=True), the Softmax and LogSoftmax modules along the channels, and
# GroupNorm and F.group_norm, forward and backward; bfloat16 once.
# Recorded with --events.
import torch
from torch import nn
import torch.nn.functional as F

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


x = torch.randn(16, 32, 40, 40, device='cuda', requires_grad=True)
lrelu = nn.LeakyReLU(0.2)
print(lrelu, nn.LeakyReLU())
y = lrelu(x)
show("leaky_relu forward")
y.sum().backward()
show("leaky_relu backward")
del y
x.grad = None
y = F.leaky_relu(x, 0.01)
show("F.leaky_relu")
del y
h = x * 2
y = F.leaky_relu(h, inplace=True)
show("leaky_relu in place")
print(y is h)
y.sum().backward()
show("leaky_relu_ backward")
del y, h
x.grad = None
h = x * 2
r = nn.ReLU(inplace=True)
print(r)
y = r(h)
show("ReLU(inplace) forward")
print(y is h, y.grad_fn.name())
y.sum().backward()
show("ReLU(inplace) backward")
del y, h
x.grad = None
h = x * 3
y = h.relu_()
show("relu_")
y.sum().backward()
show("relu_ backward")
del y, h
x.grad = None
h = x * 4
y = nn.LeakyReLU(0.3, inplace=True)(h)
show("LeakyReLU(inplace)")
print(y is h, y.grad_fn.name())
y.sum().backward()
show("LeakyReLU(inplace) backward")
del y, h
x.grad = None
try:
    r(x)
except RuntimeError as e:
    print(str(e)[:90])
show("relu_ of a leaf")
with torch.no_grad():
    r(torch.randn(16, 32, 40, 40, device='cuda'))
show("relu_ under no_grad")
sm = nn.Softmax(dim=1)
print(sm, nn.LogSoftmax(dim=-1))
y = sm(x)
show("Softmax(dim=1)")
y.sum().backward()
show("Softmax backward")
del y
x.grad = None
y = nn.LogSoftmax(dim=1)(x)
show("LogSoftmax(dim=1)")
y.sum().backward()
show("LogSoftmax backward")
del y
x.grad = None
gn = nn.GroupNorm(8, 32)
print(gn, [n for n, _ in gn.named_parameters()], list(gn.buffers()))
gn = gn.cuda()
torch.cuda.reset_peak_memory_stats()
y = gn(x)
show("GroupNorm forward")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("GroupNorm backward")
del y
x.grad = None
gn.weight.grad = None
gn.bias.grad = None
y = F.group_norm(x, 4)
show("F.group_norm(4)")
y.sum().backward()
show("F.group_norm backward")
del y
x.grad = None
gn2 = nn.GroupNorm(4, 64, device='cuda')
z = torch.randn(64, 64, 16, 16, device='cuda', requires_grad=True)
y = gn2(z)
show("GroupNorm(4, 64)")
y.sum().backward()
show("GroupNorm(4, 64) backward")
del y
with torch.no_grad():
    y = gn2(z)
show("GroupNorm no_grad")
del y
gn3 = nn.GroupNorm(8, 32, affine=False, device='cuda')
y = gn3(x)
show("GroupNorm affine=False")
y.sum().backward()
show("affine=False backward")
del y
x.grad = None
xb = torch.randn(16, 32, 40, 40, device='cuda', dtype=torch.bfloat16, requires_grad=True)
y = lrelu(xb)
y.sum().backward()
show("bf16 leaky_relu")
del y
xb.grad = None
y = gn.bfloat16()(xb)
show("bf16 GroupNorm")
y.sum().backward()
show("bf16 GroupNorm backward")
del y
del x, xb, z, gn, gn2, gn3
show("all freed")
