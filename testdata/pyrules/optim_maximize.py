# maximize=True: the gradients negated (foreach: a list per bucket, which
# weight decay then adds into; the for-loop: -grad per parameter), for
# SGD, Adam and AdamW in each implementation; each step resets the peak
# first. Recorded with --events.
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


opt = torch.optim.SGD(params(), lr=0.1, maximize=True, momentum=0.9)
backward(opt)
step(opt)
show("SGD maximize, first")
step(opt)
show("SGD maximize, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, maximize=True, weight_decay=0.01)
backward(opt)
step(opt)
show("SGD maximize wd, first")
step(opt)
show("SGD maximize wd, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.SGD(params(), lr=0.1, maximize=True, weight_decay=0.01, momentum=0.9, foreach=False)
backward(opt)
step(opt)
show("SGD maximize loop, first")
step(opt)
show("SGD maximize loop, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, maximize=True)
backward(opt)
step(opt)
show("Adam maximize, first")
step(opt)
show("Adam maximize, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, maximize=True, weight_decay=0.01)
backward(opt)
step(opt)
show("Adam maximize wd, first")
step(opt)
show("Adam maximize wd, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, maximize=True, weight_decay=0.01, foreach=False)
backward(opt)
step(opt)
show("Adam maximize loop, first")
step(opt)
show("Adam maximize loop, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, maximize=True, foreach=False)
backward(opt)
step(opt)
show("AdamW maximize loop, first")
step(opt)
show("AdamW maximize loop, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, maximize=True, fused=True)
backward(opt)
step(opt)
show("AdamW maximize fused, first")
step(opt)
show("AdamW maximize fused, second")
del opt
show("all freed")
