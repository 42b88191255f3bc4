# Library workspaces and autograd on a side stream: nn.Linear's cuBLASLt
# workspace per stream, and backward of a forward run on a side stream
# (PyTorch runs each backward op on its forward op's stream).
import torch

s = torch.cuda.Stream()
lin = torch.nn.Linear(64, 32, device='cuda')
x = torch.randn(8, 64, device='cuda')
y = lin(x)
with torch.cuda.stream(s):
    y2 = lin(x)
del y, y2
w = torch.randn(1024, 1024, device='cuda', requires_grad=True)
with torch.cuda.stream(s):
    out = (w @ w).sum()
out.backward()
g = w.grad
w.grad = None
del g, out
torch.cuda.synchronize()
a = torch.empty(1024 * 1024, device='cuda')
b = torch.empty(1024 * 1024, device='cuda')
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
del a, b
with torch.cuda.stream(s):
    out = (w @ w).sum()
    out.backward()
del out
w.grad = None
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
