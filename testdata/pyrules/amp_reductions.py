# Recorded for what the tool does not model yet under torch.autocast:
# the backward of softmax, log_softmax and cumsum of a float16 input
# (their dtype=torch.float32 forms), norm of a float16 tensor, and what a
# small GPT needs: cross_entropy of bfloat16 logits and layer_norm of a
# bfloat16 input with float32 weights, forward and backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
h = torch.randn(1024, 1024, device='cuda').half().requires_grad_()
ac = torch.autocast('cuda', dtype=torch.float16)
ac.__enter__()
sm = h.softmax(-1)
l1 = sm.sum()
lsm = h.log_softmax(-1)
l2 = lsm.sum()
c = h.cumsum(1)
l3 = c.sum()
n = h.norm()
ac.__exit__(None, None, None)
del sm, lsm, c
l1.backward()
l2.backward()
l3.backward()
print(h.grad.dtype, n.dtype)
del l1, l2, l3, n, h
logits = torch.randn(512, 8192, device='cuda', requires_grad=True)
target = torch.randint(0, 8192, (512,), device='cuda')
ln = nn.LayerNorm(1024).cuda()
x = torch.randn(512, 1024, device='cuda', requires_grad=True)
ac = torch.autocast('cuda', dtype=torch.bfloat16)
ac.__enter__()
lb = logits.bfloat16()
loss = F.cross_entropy(lb, target)
xb = x.bfloat16()
y = ln(xb)
print(loss.dtype, y.dtype)
s = y.sum()
ac.__exit__(None, None, None)
del lb, xb, y
loss.backward()
s.backward()
print(torch.cuda.memory_allocated())
