# The reentrant checkpoint in a fresh process: a Linear-GELU-Linear block
# (float32, cuda) run under no_grad in forward, rerun with grad and
# backpropagated through at once inside CheckpointFunctionBackward; a
# function of a tensor and a number; the default without use_reentrant
# (PyTorch 2.11 warns and takes this variant); inputs that need no grad
# (a warning, and an output that needs none).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
xg = torch.randn(512, 1024, device='cuda', requires_grad=True)
y = checkpoint(block, xg, use_reentrant=True)
print(y.grad_fn.name())
loss = y.sum()
loss.backward()
print(xg.grad.shape, block[2].bias.grad.shape)
del y, loss
xg.grad = None
block.zero_grad()


def scaled(t, k):
    return block(t) * k


y = checkpoint(scaled, xg, 2.0, use_reentrant=True)
y.sum().backward()
del y
xg.grad = None
block.zero_grad()
y = checkpoint(block, xg)
print(y.grad_fn.name())
y.sum().backward()
del y
x = torch.randn(512, 1024, device='cuda')
y = checkpoint(block, x, use_reentrant=True)
print(y.requires_grad, y.grad_fn)
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
