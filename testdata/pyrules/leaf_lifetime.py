# When a leaf tensor (requires_grad=True) and its .grad die: a view keeps
# its base (and the base's .grad) alive; the graph's AccumulateGrad node
# keeps its leaf alive until the graph goes; a detached copy keeps only
# the storage. Sizes: 1 GiB each.
import torch
n = 256 * 1024 * 1024
w = torch.zeros(n, device='cuda', requires_grad=True)
v = w[:1024]
(w * 2).sum().backward()
print(f"{torch.cuda.memory_allocated()}")
del w
print(f"after del w, a view alive: {torch.cuda.memory_allocated()}")
del v
print(f"after del v: {torch.cuda.memory_allocated()}")
a = torch.zeros(n, device='cuda', requires_grad=True)
y = a * 2
del a
print(f"after del a, y = a * 2 alive: {torch.cuda.memory_allocated()}")
y.sum().backward()
print(f"after backward: {torch.cuda.memory_allocated()}")
del y
print(f"after del y: {torch.cuda.memory_allocated()}")
b = torch.zeros(n, device='cuda', requires_grad=True)
(b * 2).sum().backward()
d = b.detach()
del b
print(f"after del b, b.detach() alive: {torch.cuda.memory_allocated()}")
del d
print(f"after del d: {torch.cuda.memory_allocated()}")
