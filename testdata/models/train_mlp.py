# Issue 15's MLP (recorded by scripts/record_script.py --events): trained a few steps plain, under bf16 autocast and with
# checkpointing, then in inference under no_grad and inference_mode.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

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

def autocast_step():
    opt.zero_grad(set_to_none=True)
    with torch.autocast('cuda', dtype=torch.bfloat16):
        loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()

def checkpoint_step():
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(checkpoint(model, x, use_reentrant=False), target)
    loss.backward()
    opt.step()

plain_step()
plain_step()
plain_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
autocast_step()
autocast_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
checkpoint_step()
checkpoint_step()
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = model(x)
del y
with torch.inference_mode():
    y = model(x)
del y
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
