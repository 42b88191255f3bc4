# What common PyTorch statements add to the collector's generation-0
# count (with the collector disabled, so no collection resets it): each
# row's gc minus the last is what the statement allocated less what it
# freed, as container objects.
import gc
import torch
import torch.nn as nn

gc.disable()
x = torch.empty(1024, device="cuda")
y = x + 1
z = x[:10]
del y
del z
a = torch.randn(64, 64, device="cuda", requires_grad=True)
b = (a * 2).sum()
g = b.grad_fn
del g
b.backward()
del b
lin = nn.Linear(64, 64).cuda()
out = lin(a)
out2 = lin(a)
del out, out2
seq = nn.Sequential(nn.Linear(64, 64), nn.ReLU()).cuda()
o = seq(a).sum()
o.backward()
del o
opt = torch.optim.Adam(lin.parameters())
opt.step()
opt.step()
opt.zero_grad()
sgd = torch.optim.SGD(seq.parameters(), lr=0.1, momentum=0.9)
sgd.step()
sgd.step()
m = torch.cuda.memory_allocated()
s = torch.cuda.memory_stats()
del s
lst = [torch.empty(4, device="cuda") for _ in range(10)]
del lst
lin.cpu()
lin.cuda()
sd = lin.state_dict()
del sd
p = lin.weight
p.data = p.data.clone()
t = a.detach()
del t
gc.enable()
print(gc.get_count())
