# Non-reentrant checkpointing of plain functions: locals die as the
# function returns; recomputation stops once the last saved tensor is
# packed, so the output of an op that saves only its inputs is not made
# again (a wide Linear last), while one that saves its output (sigmoid) is;
# two checkpoints in a row; a checkpoint whose output is used twice. The
# RNG states checkpoint keeps are CPU tensors.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
narrow = nn.Linear(1024, 64).cuda()
wide = nn.Linear(64, 8192, bias=False).cuda()
x = torch.randn(4096, 1024, device='cuda')


def widen(t):
    h = F.gelu(narrow(t))
    return wide(h)


def squash(t):
    s = torch.sigmoid(narrow(t))
    return s * 2


y = checkpoint(widen, x, use_reentrant=False)
y.sum().backward()
del y
narrow.zero_grad()
wide.zero_grad()
y = checkpoint(squash, x, use_reentrant=False)
y.sum().backward()
del y
narrow.zero_grad()
h = checkpoint(squash, x, use_reentrant=False)
y = checkpoint(wide, h, use_reentrant=False)
del h
loss = y.sum()
loss.backward()
del y, loss
narrow.zero_grad()
wide.zero_grad()
h = checkpoint(widen, x, use_reentrant=False)
loss = (h * h).sum()
del h
loss.backward()
del loss
print(torch.get_rng_state().dtype, torch.get_rng_state().shape, torch.cuda.get_rng_state().device, torch.cuda.get_rng_state().shape)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
