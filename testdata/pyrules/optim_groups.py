# Param groups (a list of dicts, each with its own options), a parameter
# without a gradient (skipped: no state), zero_grad(set_to_none=False)
# (zeroes in place, so the next backward accumulates into the same
# .grad), optimizer.state_dict() (references, no copies), and the
# lr_schedulers (numbers only: no memory). Recorded with --events.
import torch

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


def step(opt):
    torch.cuda.reset_peak_memory_stats()
    opt.step()


a = torch.zeros(1024, 1024, device='cuda', requires_grad=True)
b = torch.zeros(1000, device='cuda', requires_grad=True)
c = torch.zeros(1536, 1024, device='cuda', dtype=torch.float16, requires_grad=True)
d = torch.zeros(512, 1024, device='cuda', requires_grad=True)
opt = torch.optim.AdamW([{'params': [a, b]}, {'params': [c, d], 'weight_decay': 0.0, 'lr': 1e-2}], lr=1e-3)
print(len(opt.param_groups), [len(g['params']) for g in opt.param_groups], opt.param_groups[1]['lr'], opt.param_groups[0]['weight_decay'])
for p in (a, b, c):
    p.sum().backward()
show("grads, d has none")
step(opt)
show("AdamW groups, first")
print(len(opt.state), d in opt.state)
opt.zero_grad(set_to_none=False)
show("zero_grad(False)")
for p in (a, b, c, d):
    p.sum().backward()
show("accumulated in place")
step(opt)
show("AdamW groups, d's first")
sd = opt.state_dict()
show("state_dict()")
print(sorted(sd.keys()), len(sd['state']), len(sd['param_groups']))
del sd
opt.zero_grad()
show("zero_grad()")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD([{'params': [a, b], 'momentum': 0.9}, {'params': [c, d]}], lr=0.1, weight_decay=0.01)
for p in (a, b, c, d):
    p.sum().backward()
step(opt)
show("SGD groups, first")
step(opt)
show("SGD groups, second")
print(sorted(len(v) for v in opt.state.values()))
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam([{'params': [a]}, {'params': [b, c, d], 'amsgrad': True}], lr=1e-3)
step(opt)
show("Adam groups, amsgrad in one")
del opt
a.grad = b.grad = c.grad = d.grad = None
show("grads gone")
opt = torch.optim.SGD([a], lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
lrs = []
for _ in range(5):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print(lrs)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
lrs = []
for _ in range(6):
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
print(lrs)
opt = torch.optim.SGD([a], lr=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
for _ in range(3):
    opt.step()
    sched.step()
print([round(x, 6) for x in sched.get_last_lr()], opt.param_groups[0]['lr'] == sched.get_last_lr()[0])
opt = torch.optim.SGD([a], lr=0.1)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)
lrs = []
for _ in range(5):
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
print(lrs)
opt = torch.optim.AdamW([a], lr=1e-3)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=10)
lrs = []
for _ in range(4):
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
print(lrs)
show("schedulers")
del sched, opt
show("all but the leaves freed")
