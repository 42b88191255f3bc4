# What Module._apply's Python makes for each of nn.Module's conversions
# (to, cuda, cpu, half, float, double, bfloat16, to_empty; a module with
# buffers, a parameter with a .grad), each run where CPython's free list
# of pairs is dry: each round first holds 1000 new pairs (more than the
# free list holds), so that every pair the conversion makes is counted as
# it is made (a pair served from the free list counts nothing), and
# gc.get_count() after the round shows how many pairs the conversion held
# at once. The collector is off, so the counts only grow.
import gc
import torch
import torch.nn as nn

gc.disable()
keep = []
m = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8))
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.cuda()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.cpu()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.to("cuda:0")
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.half()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.float()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.to(torch.float64)
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.to("cuda:0", torch.float32)
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.cuda(0)
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.to_empty(device="cuda")
lin = nn.Linear(8, 8).cuda()
lin.weight.grad = torch.zeros_like(lin.weight)
if True:
    keep.append([(i, -i) for i in range(1000)])
    lin.to("cpu")
if True:
    keep.append([(i, -i) for i in range(1000)])
    lin.cuda()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.bfloat16()
if True:
    keep.append([(i, -i) for i in range(1000)])
    m.double()
del keep
print(torch.cuda.memory_allocated())
