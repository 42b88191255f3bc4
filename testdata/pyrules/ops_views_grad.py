# Views under autograd: unsqueeze, squeeze, permute and transpose pass
# the gradient on as a view; narrow's, select's and chunk's backward make
# a zero tensor of the input's shape; detach leaves the graph.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(1024, 1024, device='cuda', requires_grad=True)
y = x.unsqueeze(0).permute(0, 2, 1).squeeze(0).transpose(0, 1)
print(f"views: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"backward through views: {used()} {peak()}")
del y
x.grad = None
n = x.narrow(0, 256, 512)
print(f"narrow: {used()} {n.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
n.sum().backward()
print(f"narrow backward: {used()} {peak()}")
del n
x.grad = None
r = x[3]
torch.cuda.reset_peak_memory_stats()
r.sum().backward()
print(f"select backward: {used()} {peak()}")
del r
x.grad = None
d = x.detach()
print(f"detach: {used()} {d.requires_grad}")
del d
torch.cuda.reset_peak_memory_stats()
(x.exp() * 2).unsqueeze(1).sum().backward()
print(f"exp, view, backward: {used()} {peak()}")
x.grad = None
print(f"end: {used()}")
