# Convolutions on the GPU (cuDNN 9.19 on the H200, benchmark=False), each
# configuration also in testdata/conv/table.jsonl.gz: Conv1d; Conv2d with
# groups and depthwise (groups = channels, PyTorch's own kernel), without
# bias, with stride and dilation, 'same' and 'valid' padding; Conv3d;
# backward with and without the input requiring grad, a dense and a
# broadcast (.sum()) incoming gradient; bfloat16 under autocast; no_grad.
# Each statement alone so the peaks show the workspaces. Recorded with
# --events.
import torch
from torch import nn
import torch.nn.functional as F

MiB = 2**20
torch.backends.cudnn.benchmark = False


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


c1 = nn.Conv1d(16, 32, 5, padding=2).cuda()
x1 = torch.randn(8, 16, 1000, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = c1(x1)
show("conv1d forward")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("conv1d backward")
del y, x1, c1

dw = nn.Conv2d(64, 64, 3, padding=1, groups=64).cuda()
x = torch.randn(8, 64, 56, 56, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = dw(x)
show("depthwise forward")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("depthwise backward")
del y, dw

g4 = nn.Conv2d(64, 128, 3, padding=1, groups=4, bias=False).cuda()
x.grad = None
torch.cuda.reset_peak_memory_stats()
y = g4(x)
show("groups=4 forward")
g = torch.randn_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
show("groups=4 backward")
del y, g, g4, x

sd = nn.Conv2d(32, 64, 3, stride=2, padding=2, dilation=2).cuda()
x = torch.randn(16, 32, 64, 64, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = sd(x)
show("stride 2 dilation 2")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("backward, input no grad")
del y

w = torch.randn(48, 32, 5, 5, device='cuda')
xs = torch.randn(16, 32, 64, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = F.conv2d(xs, w, padding='same')
show("F.conv2d same")
g = torch.randn_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
show("backward, weight no grad")
del y, g
y = F.conv2d(xs, w, None, 1, 'valid')
show("F.conv2d valid")
del y, xs, w

c3 = nn.Conv3d(8, 16, 3, padding=1).cuda()
x3 = torch.randn(2, 8, 16, 32, 32, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = c3(x3)
show("conv3d forward")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
show("conv3d backward")
del y, x3, c3

conv = nn.Conv2d(32, 64, 3, padding=1).cuda()
xb = torch.randn(16, 32, 64, 64, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
with torch.autocast('cuda', dtype=torch.bfloat16):
    y = conv(xb)
    loss = y.float().sum()
show("bf16 autocast forward")
torch.cuda.reset_peak_memory_stats()
loss.backward()
show("bf16 backward")
del y, loss
with torch.no_grad():
    y = conv(x)
show("no_grad forward")
del y
with torch.inference_mode():
    y = sd(x)
show("inference_mode forward")
del y
