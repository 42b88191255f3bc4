# What the census's model code calls beyond layers, in one process:
# torch._foreach_* in place (an EMA update) and out of place, torch.jit.script
# and torch.jit.trace of a small MLP (what tracing and its check run),
# nn.DataParallel and nn.parallel.data_parallel over one GPU, sdpa_kernel
# with the backends PyTorch picks from, and torch.distributed before
# init_process_group (is_initialized, a collective's and DDP's errors,
# destroy_process_group's, init_process_group's without RANK).
import os
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
from torch.nn.attention import SDPBackend, sdpa_kernel

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 256)).cuda()
ema = [p.detach().clone() for p in model.parameters()]
print(f"model and EMA: {used()}")
params = [p.detach() for p in model.parameters()]
torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    torch._foreach_mul_(ema, 0.99)
    torch._foreach_add_(ema, params, alpha=0.01)
    torch._foreach_copy_(ema, params)
    torch._foreach_sub_(ema, params)
print(f"foreach in place: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
d = torch._foreach_sub(ema, params)
print(f"foreach_sub: {used()} {peak()} {len(d)}")
del d
x = torch.randn(64, 256, device='cuda')
scripted = torch.jit.script(model)
print(f"script: {used()}")
y = scripted(x)
print(f"scripted forward: {used()} {y.shape}")
del y
torch.cuda.reset_peak_memory_stats()
traced = torch.jit.trace(model, x)
print(f"trace: {used()} {peak()}")
y = traced(x)
print(f"traced forward: {used()}")
del y, scripted, traced
dp = nn.DataParallel(model, device_ids=[0])
y = dp(x)
print(f"DataParallel: {used()} {y.grad_fn.name()} {list(dp.state_dict())[0]}")
y.sum().backward()
print(f"DataParallel backward: {used()}")
del y
model.zero_grad(set_to_none=True)
y = nn.parallel.data_parallel(model, x, device_ids=[0])
print(f"data_parallel: {used()}")
del y
q = torch.randn(4, 8, 128, 64, device='cuda', dtype=torch.float16, requires_grad=True)
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
    o = F.scaled_dot_product_attention(q, q, q, is_causal=True)
print(f"sdpa_kernel: {used()} {o.grad_fn.name()}")
del o, q
print(dist.is_available(), dist.is_initialized(), dist.get_default_backend_for_device('cuda'))
for f in (lambda: dist.all_reduce(x), lambda: dist.broadcast(x, 0), lambda: dist.barrier(),
          lambda: nn.parallel.DistributedDataParallel(model), lambda: dist.destroy_process_group()):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
os.environ.pop('RANK', None)
try:
    dist.init_process_group('nccl')
except Exception as e:
    print(type(e).__name__, e)
print(f"end: {used()}")
