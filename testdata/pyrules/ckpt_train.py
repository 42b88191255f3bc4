# testdata/models/train_mlp.py's checkpointed training step without its
# autocast steps: the MLP trained with AdamW and an MSE loss, a plain step,
# then steps checkpointing the whole model (use_reentrant=False), then
# checkpoint_sequential in 2 segments of the same model.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(512, 1024, device='cuda')
target = torch.randn(512, 1024, device='cuda')


def plain_step():
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()


def checkpoint_step():
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(checkpoint(model, x, use_reentrant=False), target)
    loss.backward()
    opt.step()


def sequential_step():
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(checkpoint_sequential(model, 2, x, use_reentrant=False), target)
    loss.backward()
    opt.step()


plain_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
checkpoint_step()
checkpoint_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
sequential_step()
sequential_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
