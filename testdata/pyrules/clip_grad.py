# torch.nn.utils.clip_grad_norm_ and clip_grad_value_ on the H200, as a
# training loop calls them between backward and step: the per-tensor
# norms (foreach on CUDA), their stack and norm, the clip coefficient,
# the in-place scaling; with grads of several dtypes, a parameter
# without .grad, norm_type inf, foreach=False; `--events`.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 256)).cuda()
x = torch.randn(64, 512, device='cuda')
model(x).sum().backward()
print(f"grads: {used()}")
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
print(f"clip_grad_norm_: {used()} {peak()} {n.shape} {n.dtype} {n.device}")
del n
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=2.0)
print(f"again: {used()} {peak()}")
del n
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=float('inf'))
print(f"inf: {used()} {peak()}")
del n
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=False)
print(f"foreach=False: {used()} {peak()}")
del n
model[2].bias.grad = None
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
print(f"one without grad: {used()} {peak()}")
del n
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(model[0].weight, 1.0)
print(f"one tensor: {used()} {peak()}")
del n
torch.cuda.reset_peak_memory_stats()
torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)
print(f"clip_grad_value_: {used()} {peak()}")
big = nn.Linear(4096, 4096).cuda()
big(torch.randn(8, 4096, device='cuda')).sum().backward()
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(big.parameters(), 1.0)
print(f"big: {used()} {peak()}")
del n
half = nn.Linear(512, 512).cuda().half()
half(torch.randn(8, 512, device='cuda', dtype=torch.half)).sum().backward()
torch.cuda.reset_peak_memory_stats()
n = torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(half.parameters()), 1.0)
print(f"two dtypes: {used()} {peak()} {n.dtype}")
del n
opt = torch.optim.AdamW(model.parameters())
for step in range(2):
    opt.zero_grad(set_to_none=True)
    model(x).sum().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
print(f"loop: {used()} {peak()}")
