# nn.LayerNorm and F.layer_norm: forward makes the output, then mean and
# rstd (float32, one per row); autograd saves input, mean and rstd;
# backward makes the input's, weight's and bias's gradients, in that
# order, with the gamma/beta reduction's temporaries for many rows;
# nn.RMSNorm; `--events`.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
ln = nn.LayerNorm(256, device='cuda')
x = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
y = ln(x)
print(f"forward: {used()} {y.grad_fn.name()}")
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"backward: {used()} {peak()}")
del y, g
x.grad = None
ln.weight.grad = None
ln.bias.grad = None
y = ln(x)
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sum backward: {used()} {peak()}")
del y, x
ln.weight.grad = None
ln.bias.grad = None
x = torch.randn(64, 1024, 256, device='cuda', requires_grad=True)
y = ln(x)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"65536 rows: {used()} {peak()}")
del y, g, x
ln.weight.grad = None
ln.bias.grad = None
wide = nn.LayerNorm(4096, device='cuda')
x = torch.randn(512, 4096, device='cuda', requires_grad=True)
y = wide(x)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"512 rows of 4096: {used()} {peak()}")
del y, g, x, wide
x = torch.randn(8, 128, 256, device='cuda')
y = ln(x)
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"input without grad: {used()} {peak()}")
del y
ln.weight.grad = None
ln.bias.grad = None
plain = nn.LayerNorm(256, elementwise_affine=False, device='cuda')
x.requires_grad_()
y = plain(x)
y.sum().backward()
print(f"no affine: {used()}")
del y
x.grad = None
y = F.layer_norm(x, (256,))
print(f"F.layer_norm: {used()}")
del y
with torch.no_grad():
    y = ln(x)
print(f"no_grad: {used()}")
del y
nobias = nn.LayerNorm(256, bias=False, device='cuda')
y = nobias(x)
y.sum().backward()
print(f"no bias: {used()}")
del y, nobias
x.grad = None
rms = nn.RMSNorm(256, device='cuda')
y = rms(x)
print(f"rms forward: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"rms backward: {used()} {peak()}")
del y
x.grad = None
with torch.no_grad():
    y = rms(x)
print(f"rms no_grad: {used()}")
del y, rms, plain, ln, x
print(f"end: {used()}")
