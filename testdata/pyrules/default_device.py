# The default device and dtype: torch.device as a context manager,
# torch.set_default_device, torch.set_default_dtype and get_default_dtype.
# What each factory and module makes, and where, under each.
import torch
import torch.nn as nn

print(torch.get_default_dtype(), torch.get_default_device())
with torch.device("cuda"):
    a = torch.empty(1024, 1024)
    b = torch.zeros(256, 1024)
    lin = nn.Linear(1024, 2048)
    c = torch.arange(4096)
    print(torch.get_default_device())
print(a.device, b.device, lin.weight.device, lin.bias.device, c.device)
d = torch.empty(1024, 1024)
print(d.device, torch.get_default_device())
with torch.device("cuda:0") as dev:
    e = torch.ones(2, 1024, 1024)
    f = torch.empty(1024, device="cpu")
print(dev, e.device, f.device)
del a, b, c, d, e, f
with torch.device("cuda"):
    with torch.device("cpu"):
        g = torch.empty(1024, 1024)
    h = torch.empty(1024, 1024)
print(g.device, h.device)
del g, h
torch.set_default_device("cuda")
i = torch.empty(1024, 1024)
j = torch.tensor([1.0, 2.0])
k = torch.randn(512, 1024)
m = torch.full((256, 1024), 7.0)
print(i.device, j.device, k.device, m.device, torch.get_default_device())
n = lin(k)
print(n.device, n.shape)
torch.set_default_device(None)
o = torch.empty(1024, 1024)
print(o.device, torch.get_default_device())
del i, j, k, m, n, o
torch.set_default_device("cuda:0")
p = torch.zeros(1024, 1024)
torch.set_default_device("cpu")
q = torch.zeros(1024, 1024)
print(p.device, q.device)
del p, q
torch.set_default_dtype(torch.float16)
print(torch.get_default_dtype())
r = torch.empty(1024, 1024, device="cuda")
s = torch.tensor([1.5, 2.5], device="cuda")
t = torch.arange(4.0, device="cuda")
u = torch.tensor([1, 2], device="cuda")
v = torch.zeros(1024, 1024, device="cuda", dtype=torch.float32)
lin16 = nn.Linear(1024, 1024, device="cuda")
print(r.dtype, s.dtype, t.dtype, u.dtype, v.dtype, lin16.weight.dtype)
del r, s, t, u, v
torch.set_default_dtype(torch.float64)
w = torch.ones(512, 1024, device="cuda")
print(w.dtype, torch.tensor(1.0).dtype, torch.get_default_dtype())
del w
torch.set_default_dtype(torch.float32)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as err:
    print("TypeError:", err)
with torch.device("cuda"):
    torch.set_default_dtype(torch.bfloat16)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
    torch.set_default_dtype(torch.float32)
print(model[0].weight.dtype, model[0].weight.device)
x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
y = model(x)
y.float().sum().backward()
print(model[2].weight.grad.dtype)
del x, y
print(torch.get_default_dtype(), torch.get_default_device())
