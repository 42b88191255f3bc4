# Activation checkpointing under torch.autocast: the forward runs the
# block without keeping its activations, and backward reruns it under
# the autocast setting the forward had (its weight casts made again).
# Non-reentrant and reentrant, bf16 and fp16, a block called twice.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
x = torch.randn(256, 1024, device="cuda", requires_grad=True)
with torch.autocast("cuda", dtype=torch.bfloat16):
    y = checkpoint(block, x, use_reentrant=False)
    loss = y.float().pow(2).mean()
print(y.dtype, torch.cuda.memory_allocated())
loss.backward()
print(x.grad.dtype, block[0].weight.grad.dtype)
del y, loss
block.zero_grad(set_to_none=True)
x.grad = None
with torch.autocast("cuda", dtype=torch.bfloat16):
    h = checkpoint(block, x, use_reentrant=False)
    h = checkpoint(block, h, use_reentrant=False)
    loss = h.float().sum()
loss.backward()
del h, loss
block.zero_grad(set_to_none=True)
x.grad = None
with torch.autocast("cuda", dtype=torch.float16):
    y = checkpoint(block, x, use_reentrant=True)
    loss = y.float().sum()
loss.backward()
del y, loss
with torch.autocast("cuda", dtype=torch.bfloat16):
    y = checkpoint(block, x, use_reentrant=False)
loss = y.float().sum()
loss.backward()
del y, loss
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
