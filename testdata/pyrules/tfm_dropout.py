# nn.Dropout and F.dropout: in training a new output and a bool mask
# (saved for backward; backward makes the gradient); eval mode, p=0 and
# training=False return the input; inplace=True; `--events`.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
drop = nn.Dropout(0.1)
x = torch.randn(8, 128, 256, device='cuda', requires_grad=True)
y = drop(x)
print(f"train: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"backward: {used()} {peak()}")
del y
x.grad = None
h = x * 2
y = drop(h)
g = torch.ones_like(y)
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(f"of a temporary: {used()} {peak()}")
del y, g, h
x.grad = None
z = torch.randn(8, 128, 256, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = drop(z)
print(f"no grad needed: {used()} {peak()}")
del y
with torch.no_grad():
    torch.cuda.reset_peak_memory_stats()
    y = drop(x)
print(f"no_grad: {used()} {peak()}")
del y
drop.eval()
y = drop(x)
print(f"eval: {used()} {y is x}")
del y
drop.train()
y = nn.Dropout(0.0)(x)
print(f"p=0: {used()} {y is x}")
del y
y = F.dropout(x, 0.2)
print(f"F.dropout: {used()} {y.grad_fn.name()}")
del y
y = F.dropout(x, 0.2, training=False)
print(f"training=False: {used()}")
del y
y = F.dropout(x, p=1.0)
print(f"p=1: {used()}")
del y
h = x * 2
y = nn.Dropout(0.1, inplace=True)(h)
print(f"inplace: {used()} {y is h} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"inplace backward: {used()} {peak()}")
del y, h
x.grad = None
h = torch.randn(8, 128, 256, device='cuda')
F.dropout(h, 0.5, inplace=True)
print(f"inplace no grad: {used()}")
del h, x, z
print(f"end: {used()}")
