# nn.BatchNorm2d, nn.BatchNorm1d and F.batch_norm on the GPU: the buffers
# a module makes (running_mean, running_var, num_batches_tracked) on the
# host and on .cuda(); a training forward (cuDNN's output, save_mean,
# save_invstd, reserve space) and its backward; eval (output only);
# track_running_stats=False, affine=False (PyTorch's own kernel, not
# cuDNN's), a 2-d and a 3-d input to BatchNorm1d, and a bfloat16 input to
# float32 weights (as under autocast). Recorded with --events.
import torch
from torch import nn
import torch.nn.functional as F

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


bn = nn.BatchNorm2d(32)
print([n for n, _ in bn.named_buffers()], bn.num_batches_tracked.dtype, bn)
bn = bn.cuda()
x = torch.randn(64, 32, 32, 32, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = bn(x)
show("bn2d forward")
print(bn.num_batches_tracked.item())
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("bn2d backward")
del y
x.grad = None
bn.weight.grad = None
bn.bias.grad = None
bn64 = nn.BatchNorm2d(64, device='cuda')
x2 = torch.randn(64, 64, 16, 16, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = bn64(x2)
show("bn2d(64) forward")
y.sum().backward()
show("bn2d(64) backward")
del y
x3 = torch.randn(5, 24, 7, 9, device='cuda')
bn24 = nn.BatchNorm2d(24).cuda()
y = bn24(x3)
show("bn2d no grad in forward")
del y
bn.eval()
y = bn(x)
show("bn2d eval")
y.sum().backward()
show("bn2d eval backward")
del y
x.grad = None
bn.train()
with torch.no_grad():
    y = bn(x)
show("bn2d train under no_grad")
del y
plain = nn.BatchNorm2d(32, track_running_stats=False, device='cuda')
print([n for n, _ in plain.named_buffers()], plain.running_mean)
y = plain(x)
show("no running stats forward")
y.sum().backward()
show("no running stats backward")
del y
x.grad = None
noaff = nn.BatchNorm2d(32, affine=False, device='cuda')
print([n for n, _ in noaff.named_parameters()])
y = noaff(x)
show("affine=False forward")
y.sum().backward()
show("affine=False backward")
del y
x.grad = None
noaff.eval()
y = noaff(x)
show("affine=False eval")
del y
bn1 = nn.BatchNorm1d(48, device='cuda')
v = torch.randn(256, 48, device='cuda', requires_grad=True)
y = bn1(v)
show("bn1d 2-d forward")
y.sum().backward()
show("bn1d 2-d backward")
del y
w = torch.randn(32, 48, 100, device='cuda', requires_grad=True)
y = bn1(w)
show("bn1d 3-d forward")
y.sum().backward()
show("bn1d 3-d backward")
del y
rm = torch.zeros(32, device='cuda')
rv = torch.ones(32, device='cuda')
y = F.batch_norm(x, rm, rv, bn.weight, bn.bias, training=True)
show("F.batch_norm train")
y.sum().backward()
show("F.batch_norm backward")
del y
x.grad = None
y = F.batch_norm(x, rm, rv)
show("F.batch_norm eval")
del y
xb = torch.randn(64, 32, 32, 32, device='cuda', dtype=torch.bfloat16, requires_grad=True)
y = bn(xb)
show("bf16 forward")
print(y.dtype)
y.sum().backward()
show("bf16 backward")
del y
del xb, x, x2, x3, v, w
show("inputs freed")
del bn, bn64, bn24, plain, noaff, bn1, rm, rv
show("all freed")
