# Activation checkpointing of one Linear-GELU-Linear block (float32, cuda):
# use_reentrant=False keeps only the inputs and recomputes the block at the
# first unpack in backward; use_reentrant=True runs forward under no_grad
# and recomputes with grad inside CheckpointFunctionBackward; with no
# use_reentrant, PyTorch 2.11 warns and takes the reentrant variant. A
# reentrant checkpoint whose inputs need no grad makes an output that needs
# none.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
x = torch.randn(512, 1024, device='cuda')
y = checkpoint(block, x, use_reentrant=False)
print(y.grad_fn.name(), y.requires_grad)
loss = y.sum()
loss.backward()
print(block[0].weight.grad.shape, block[2].bias.grad.shape)
del y, loss
block.zero_grad()
xg = torch.randn(512, 1024, device='cuda', requires_grad=True)
y = checkpoint(block, xg, use_reentrant=False)
y.sum().backward()
print(xg.grad.shape)
del y
xg.grad = None
block.zero_grad()
y = checkpoint(block, x, use_reentrant=True)
print(y.requires_grad, y.grad_fn)
del y
y = checkpoint(block, xg, use_reentrant=True)
print(y.grad_fn.name())
loss = y.sum()
loss.backward()
print(xg.grad.shape, block[2].bias.grad.shape)
del y, loss
xg.grad = None
block.zero_grad()
y = checkpoint(block, xg)
print(y.grad_fn.name())
y.sum().backward()
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
