# A convolution's backward whose incoming gradient is strided, each
# backend's way of making it dense (engine/convgrad.go), beside the two
# cases zoo_paths.py recorded (cuDNN's weight and bias gradients of a
# flattened and transposed output; the depthwise kernel's three): cuDNN
# with the input's gradient too, and without a bias, of a channels-last
# -like gradient (one copy before both passes); cuDNN of a gradient
# PyTorch takes for contiguous though it is not (transpose(2, 3): a copy
# in each pass, and the bias's sum over a gradient whose fastest
# dimension is summed); a transposed convolution's (one copy); the
# depthwise kernel without the input's gradient; conv1d of a transposed
# output (view4d's unsqueeze, then one copy); a float16 depthwise
# convolution (cuDNN's or PyTorch's kernel by the workload). The
# batches are large enough that the bias's sum splits across blocks.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
conv = nn.Conv2d(32, 64, 3, padding=1).cuda()
x = torch.randn(8, 32, 56, 56, device='cuda', requires_grad=True)
y = conv(x).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"cudnn permuted, input, weight and bias: {used()} {peak()}")
del y
x.grad = None
conv.bias = None
y = conv(x).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"cudnn permuted, no bias: {used()} {peak()}")
del y, conv
x.grad = None
conv = nn.Conv2d(32, 64, 3, padding=1).cuda()
y = conv(x).transpose(2, 3)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"cudnn transposed H and W: {used()} {peak()}")
del y, conv, x
up = nn.ConvTranspose2d(64, 32, 2, stride=2).cuda()
x = torch.randn(8, 64, 28, 28, device='cuda', requires_grad=True)
y = up(x).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"conv_transpose2d permuted: {used()} {peak()}")
del y, up, x
dw = nn.Conv2d(96, 96, kernel_size=7, padding=3, groups=96).cuda()
img = torch.randn(6, 96, 28, 28, device='cuda')
y = dw(img).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"depthwise permuted, weight and bias: {used()} {peak()}")
del y, dw, img
c1 = nn.Conv1d(64, 128, 3, padding=1).cuda()
x = torch.randn(16, 64, 500, device='cuda', requires_grad=True)
y = c1(x).transpose(1, 2)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"conv1d transposed output: {used()} {peak()}")
del y, c1, x
dw = nn.Conv2d(64, 64, kernel_size=3, padding=1, groups=64).cuda().half()
x = torch.randn(8, 64, 56, 56, device='cuda', dtype=torch.float16, requires_grad=True)
y = dw(x).permute(0, 2, 3, 1)
torch.cuda.reset_peak_memory_stats()
(y * 2).sum().backward()
print(f"float16 depthwise permuted: {used()} {peak()}")
del y, dw, x
