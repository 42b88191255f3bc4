# torch.nn.init and the in-place random fills under it, on the H200:
# each writes its tensor in place (no allocation), under no_grad, and
# returns it; the fan and gain arithmetic and its errors. `--events`.
import math
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
w = torch.empty(256, 512, device='cuda', requires_grad=True)
b = torch.empty(256, device='cuda', requires_grad=True)
c = torch.empty(64, 32, 3, 3, device='cuda')
print(f"start: {used()}")
r = nn.init.normal_(w, mean=0.0, std=0.02)
print(f"normal_: {used()} {r is w} {w.requires_grad} {w.grad_fn} {w.is_leaf}")
nn.init.uniform_(w, -0.1, 0.1)
nn.init.zeros_(b)
nn.init.ones_(b)
nn.init.constant_(b, 0.5)
print(f"fills: {used()} {b[0].item()}")
nn.init.xavier_uniform_(w)
nn.init.xavier_normal_(w, gain=nn.init.calculate_gain('relu'))
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
nn.init.kaiming_normal_(c, mode='fan_out', nonlinearity='relu')
print(f"fans: {used()}")
nn.init.trunc_normal_(w, std=0.02)
nn.init.trunc_normal_(c, mean=0.0, std=1.0, a=-2.0, b=2.0)
print(f"trunc_normal_: {used()}")
nn.init.eye_(w)
print(f"eye_: {used()}")
nn.init.dirac_(c[:, :32])
print(f"dirac_: {used()}")
print(nn.init.calculate_gain('linear'), nn.init.calculate_gain('tanh'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('selu'))
print(nn.init._calculate_fan_in_and_fan_out(c))
try:
    nn.init.xavier_uniform_(b)
except ValueError as e:
    print('ValueError:', e)
try:
    nn.init.calculate_gain('swish')
except ValueError as e:
    print('ValueError:', e)
with torch.no_grad():
    w.normal_(0, 0.02)
    w.uniform_(-1, 1)
    b.bernoulli_(0.5)
    b.exponential_()
    b.random_(0, 10)
print(f"methods: {used()}")
w.data.normal_(mean=0.0, std=0.02)
print(f"data: {used()} {w.grad_fn}")
try:
    w.normal_()
except RuntimeError as e:
    print('RuntimeError:', e)
x = torch.empty(1000, 1000, device='cuda').uniform_(0, 1)
print(f"chained: {used()} {x.shape}")
lin = nn.Linear(512, 256).cuda()
for m in [lin]:
    nn.init.normal_(m.weight, std=0.02)
    nn.init.zeros_(m.bias)
print(f"module init: {used()}")
