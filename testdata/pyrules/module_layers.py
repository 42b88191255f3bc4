# The parameterless layers as modules: Identity (returns its input),
# Flatten (a view), and the activations Tanh, Sigmoid (save their output),
# SiLU and LeakyReLU (save their input), forward and backward; ModuleList's
# append/extend/insert and ModuleDict's items(). Recorded with --events.
import torch
from torch import nn

MiB = 2**20


def show(label):
    print(f"{label:<28}{torch.cuda.memory_allocated() / MiB:10.4f} MiB  peak {torch.cuda.max_memory_allocated() / MiB:10.4f} MiB")


x = torch.ones(8, 4, 256, 256, device='cuda', requires_grad=True)
ident = nn.Identity()
print(ident(x) is x, ident)
flat = nn.Flatten()
y = flat(x)
print(tuple(y.shape), y.data_ptr() == x.data_ptr(), flat)
y.sum().backward()
show("Flatten backward")
del y
x.grad = None
for layer in (nn.Tanh(), nn.Sigmoid(), nn.SiLU(), nn.LeakyReLU(0.1)):
    torch.cuda.reset_peak_memory_stats()
    y = layer(x)
    show(f"{type(layer).__name__} forward")
    y.sum().backward()
    show(f"{type(layer).__name__} backward")
    del y
    x.grad = None
ml = nn.ModuleList()
ml.append(nn.Tanh())
ml.extend([nn.Sigmoid(), nn.SiLU()])
ml.insert(0, nn.Identity())
print([type(m).__name__ for m in ml], len(ml))
md = nn.ModuleDict()
md['act'] = nn.SiLU()
md.update({'id': nn.Identity()})
print([(k, type(v).__name__) for k, v in md.items()], 'act' in md, len(md))
z = x
for m in ml:
    z = m(z)
show("ModuleList forward")
z.sum().backward()
show("ModuleList backward")
del z, x
show("all freed")
