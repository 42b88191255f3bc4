# torch.autocast over nn.Linear (bf16 and fp16): which casts each forward
# makes (the bias, the weight, then the input: the wrapper's arguments are
# cast last to first), the cast cache that keeps a weight's cast copy from
# its first use to the outermost region's exit (two forwards in one
# region share it, two regions cast twice), what backward's
# ToCopyBackward0 allocates, the cast under no_grad, enabled=False inside
# a region, and cache_enabled=False. Regions are entered by hand
# (__enter__/__exit__) where each statement inside must be a step. The
# input has 512 rows: with 1024, the bias gradient's sum over them in
# bfloat16 goes through the reduction kernel's buffer across blocks
# (16 MiB and 64 bytes here), which the tool does not model yet.
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(1024, 4096).cuda()
x = torch.randn(512, 1024, device='cuda')
print(torch.is_autocast_enabled())
ac = torch.autocast('cuda', dtype=torch.bfloat16)
ac.__enter__()
print(torch.is_autocast_enabled(), torch.get_autocast_dtype('cuda'))
y = lin(x)
print(y.dtype)
y2 = lin(x)
loss = y.sum() + y2.sum()
print(loss.dtype)
ac.__exit__(None, None, None)
print(torch.is_autocast_enabled())
loss.backward()
print(lin.weight.grad.dtype, lin.bias.grad.dtype)
del y, y2, loss
lin.zero_grad()
with torch.autocast('cuda', dtype=torch.float16):
    y = lin(x)
with torch.autocast('cuda', dtype=torch.float16):
    y2 = lin(x)
print(y.dtype, y2.dtype)
loss = y.sum() + y2.sum()
print(loss.dtype)
loss.backward()
del y, y2, loss
xg = torch.randn(512, 1024, device='cuda', requires_grad=True)
ac = torch.autocast('cuda', dtype=torch.bfloat16)
ac.__enter__()
h = lin(xg)
out = h.sum()
ac.__exit__(None, None, None)
del h
out.backward()
print(xg.grad.dtype)
del out, xg
with torch.no_grad():
    with torch.autocast('cuda', dtype=torch.bfloat16):
        y = lin(x)
print(y.dtype, y.requires_grad)
del y
ac = torch.autocast('cuda', dtype=torch.bfloat16)
ac.__enter__()
y = lin(x)
inner = torch.autocast('cuda', enabled=False)
inner.__enter__()
print(torch.is_autocast_enabled())
y2 = lin(x)
print(y2.dtype)
inner.__exit__(None, None, None)
y3 = lin(x)
ac.__exit__(None, None, None)
del y, y2, y3
with torch.autocast('cuda', dtype=torch.bfloat16, cache_enabled=False):
    y = lin(x)
    y2 = lin(x)
del y, y2
@torch.autocast('cuda', dtype=torch.bfloat16)
def forward(t):
    return lin(t)
y = forward(x)
print(y.dtype, torch.is_autocast_enabled())
del y
with torch.amp.autocast('cuda', dtype=torch.bfloat16):
    y = lin(x)
del y
with torch.cuda.amp.autocast():
    y = lin(x)
print(y.dtype)
del y
print(torch.cuda.memory_allocated())
