# copy.deepcopy and copy.copy of tensors and modules: what each allocates
# (an EMA or "best model" copy, a state_dict snapshot), in what order, and
# what shares storage.
import copy
import torch
import torch.nn as nn

MiB = 1 << 20
a = torch.empty(2 * MiB, device='cuda')
b = copy.deepcopy(a)
print(b.shape, b.device, b.untyped_storage().nbytes())
v = a[: MiB // 4]
c = copy.deepcopy(v)
print(c.shape, c.storage_offset(), c.untyped_storage().nbytes())
pair = copy.deepcopy([a, v])
print(pair[0].untyped_storage().data_ptr() == pair[1].untyped_storage().data_ptr(), pair[1].storage_offset())
s = copy.copy(a)
print(s.data_ptr() == a.data_ptr(), s is a)
d = copy.deepcopy({'x': a, 'y': [v, 3]})
del b, c, pair, s, v, d
w = torch.empty(MiB, device='cuda', requires_grad=True)
w.grad = torch.ones_like(w)
w2 = copy.deepcopy(w)
print(w2.requires_grad, w2.grad is not None, w2.is_leaf, w2.grad.data_ptr() != w.grad.data_ptr())
y = w * 2
try:
    copy.deepcopy(y)
except RuntimeError as e:
    print(str(e)[:72])
del y, w2
m = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 1024)).cuda()
ema = copy.deepcopy(m)
print(sum(p.numel() for p in ema.parameters()), type(ema[0].weight).__name__, ema[0].weight.requires_grad)
out = m(torch.randn(64, 1024, device='cuda')).sum()
out.backward()
del out
ema2 = copy.deepcopy(m)
print(all(p.grad is not None for p in ema2.parameters()))
del ema, ema2
best = copy.deepcopy(m.state_dict())
print(list(best.keys()), best['0.weight'].requires_grad)
del best
holder = nn.Module()
holder.register_buffer('running', torch.zeros(MiB, device='cuda'))
holder2 = copy.deepcopy(holder)
del holder, holder2
cpu = torch.ones(MiB)
cpu2 = copy.deepcopy(cpu)
print(cpu2.device)
