# SGD as PyTorch 2.11 runs it on CUDA: foreach by default (one list of
# temporaries per (device, dtype) group), foreach=False (one parameter at a
# time) and fused=True; momentum buffers made at the first step; weight
# decay, dampening and nesterov. Five parameters of three dtypes and both
# pools; each step resets the peak first, so max_memory_allocated is the
# step's own peak. Recorded with --events.
import torch

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


def params():
    return [torch.zeros(1024, 1024, device='cuda', requires_grad=True),
            torch.zeros(1000, device='cuda', requires_grad=True),
            torch.zeros(1536, 1024, device='cuda', dtype=torch.float16, requires_grad=True),
            torch.zeros(2000, 1500, device='cuda', dtype=torch.bfloat16, requires_grad=True),
            torch.zeros(300, 300, device='cuda', requires_grad=True)]


def backward(opt):
    for group in opt.param_groups:
        for p in group['params']:
            p.sum().backward()


def step(opt):
    torch.cuda.reset_peak_memory_stats()
    opt.step()


opt = torch.optim.SGD(params(), lr=0.1)
backward(opt)
step(opt)
show("plain")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9)
backward(opt)
step(opt)
show("momentum, first step")
opt.zero_grad()
show("zero_grad()")
backward(opt)
step(opt)
show("momentum, second step")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, weight_decay=0.01)
backward(opt)
step(opt)
show("weight_decay")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)
backward(opt)
step(opt)
show("momentum, wd, first")
step(opt)
show("momentum, wd, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9, nesterov=True)
backward(opt)
step(opt)
show("nesterov, first")
step(opt)
show("nesterov, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
backward(opt)
step(opt)
show("nesterov, wd, first")
step(opt)
show("nesterov, wd, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, foreach=False)
backward(opt)
step(opt)
show("foreach=False, first")
step(opt)
show("foreach=False, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, weight_decay=0.01, foreach=False)
backward(opt)
step(opt)
show("foreach=False, wd")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, momentum=0.9, fused=True)
backward(opt)
step(opt)
show("fused, first")
step(opt)
show("fused, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, fused=True)
backward(opt)
step(opt)
show("fused, no momentum")
del opt
show("all freed")
