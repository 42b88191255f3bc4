# Adam and AdamW as PyTorch 2.11 runs them on CUDA: foreach by default
# (its lists of intermediates per (device, dtype) group: the weight-decayed
# gradients, the square roots), foreach=False (one parameter at a time:
# sqrt, then the division), fused=True (its step counters on the GPU);
# amsgrad's max_exp_avg_sq; the state made at the first step. Five
# parameters of three dtypes and both pools; each step resets the peak
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


opt = torch.optim.Adam(params(), lr=1e-3)
backward(opt)
step(opt)
show("Adam, first")
step(opt)
show("Adam, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, weight_decay=0.01)
backward(opt)
step(opt)
show("Adam wd, first")
step(opt)
show("Adam wd, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, amsgrad=True)
backward(opt)
step(opt)
show("Adam amsgrad, first")
step(opt)
show("Adam amsgrad, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, amsgrad=True, weight_decay=0.01)
backward(opt)
step(opt)
show("Adam amsgrad wd, first")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, weight_decay=0.01, foreach=False)
backward(opt)
step(opt)
show("Adam foreach=False, first")
step(opt)
show("Adam foreach=False, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, amsgrad=True, foreach=False)
backward(opt)
step(opt)
show("Adam ams foreach=False, first")
del opt
torch.cuda.empty_cache()
opt = torch.optim.Adam(params(), lr=1e-3, fused=True)
backward(opt)
step(opt)
show("Adam fused, first")
step(opt)
show("Adam fused, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3)
backward(opt)
step(opt)
show("AdamW, first")
step(opt)
show("AdamW, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, weight_decay=0.0)
backward(opt)
step(opt)
show("AdamW wd 0, first")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, amsgrad=True)
backward(opt)
step(opt)
show("AdamW amsgrad, first")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, foreach=False)
backward(opt)
step(opt)
show("AdamW foreach=False, first")
step(opt)
show("AdamW foreach=False, second")
del opt
torch.cuda.empty_cache()
opt = torch.optim.AdamW(params(), lr=1e-3, fused=True, amsgrad=True)
backward(opt)
step(opt)
show("AdamW fused amsgrad, first")
step(opt)
show("AdamW fused amsgrad, second")
del opt
show("all freed")
