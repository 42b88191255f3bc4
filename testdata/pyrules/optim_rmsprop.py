# torch.optim.RMSprop's step on CUDA, each of its paths (engine/optim_rmsprop.go):
# foreach (_multi_tensor_rmsprop) and the for-loop (_single_tensor_rmsprop),
# each plain, with weight decay, with momentum and centered, maximized; two
# dtypes (two buckets of the foreach lists); a parameter without a gradient.
# Gradients are set by hand so that each statement is the optimizer's alone.
# Two steps each: the first makes the state, the second only steps.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
shapes = [(1000, 333), (333,), (77, 64, 3, 3), (64,), (4096, 257)]


def params(dtypes=(torch.float32,)):
    ps = []
    for i, s in enumerate(shapes):
        p = torch.nn.Parameter(torch.randn(*s, device='cuda', dtype=dtypes[i % len(dtypes)]))
        p.grad = torch.randn_like(p)
        ps.append(p)
    return ps


ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach plain step 1: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach plain step 2: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach weight decay: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach weight decay 2: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, momentum=0.9, centered=True, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach momentum centered: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach momentum centered 2: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, maximize=True, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach maximize weight decay: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, maximize=True, centered=True, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach maximize centered: {used()} {peak()}")
del opt, ps
ps = params((torch.float32, torch.float16))
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, momentum=0.5, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach two dtypes: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach two dtypes 2: {used()} {peak()}")
del opt, ps
ps = params()
ps[2].grad = None
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, foreach=True)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"foreach one without grad: {used()} {peak()} {len(opt.state)}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, foreach=False)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"for-loop plain: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"for-loop plain 2: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, momentum=0.999, foreach=False)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"for-loop weight decay momentum: {used()} {peak()}")
del opt, ps
ps = params()
opt = torch.optim.RMSprop(ps, lr=1e-3, momentum=0.9, centered=True, foreach=False)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"for-loop momentum centered: {used()} {peak()}")
del opt, ps
ps = params((torch.float32, torch.float16))
opt = torch.optim.RMSprop(ps, lr=1e-3, weight_decay=1e-2, maximize=True, centered=True, foreach=False)
torch.cuda.reset_peak_memory_stats()
opt.step()
print(f"for-loop maximize weight decay centered: {used()} {peak()}")
opt.zero_grad()
print(f"zero_grad: {used()} {ps[0].grad}")
del opt, ps
print(f"end: {used()}")
