# checkpoint_sequential over a Sequential of four Linear-GELU-Linear blocks
# in 2 segments (the first checkpointed, the last run as it is), in both
# variants, and the loop users write: each block checkpointed in turn.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)) for _ in range(4)]).cuda()
x = torch.randn(512, 1024, device='cuda', requires_grad=True)
y = checkpoint_sequential(model, 2, x, use_reentrant=False)
print(y.grad_fn.name())
y.sum().backward()
del y
model.zero_grad()
x.grad = None
y = checkpoint_sequential(model, 2, x, use_reentrant=True)
print(y.grad_fn.name())
y.sum().backward()
del y
model.zero_grad()
x.grad = None


def run(t):
    for blk in model:
        t = checkpoint(blk, t, use_reentrant=False)
    return t


y = run(x)
y.sum().backward()
del y
model.zero_grad()
x.grad = None
y = checkpoint_sequential(list(model.children()), 2, x, use_reentrant=False)
loss = y.sum()
loss.backward()
del y, loss
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
