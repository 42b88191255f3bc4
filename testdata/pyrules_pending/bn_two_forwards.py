# BatchNorm in training run twice before one backward (two views, as
# SimCLR, BYOL and DINO's multi-crop do): whether the running stats,
# updated in place by the second forward, may still be read by the
# first forward's backward, for cuDNN's kernel (float32, 4-d) and
# PyTorch's own (a 2-d input, affine=False); and a third forward in eval.
import torch
import torch.nn as nn

used = lambda: torch.cuda.memory_allocated()
bn = nn.BatchNorm2d(32).cuda()
a = torch.randn(8, 32, 20, 20, device='cuda', requires_grad=True)
b = torch.randn(8, 32, 10, 10, device='cuda', requires_grad=True)
ya = bn(a)
yb = bn(b)
print(bn.running_mean._version, used())
(ya.sum() + yb.sum()).backward()
print(a.grad.shape, b.grad.shape, used())
bn1 = nn.BatchNorm1d(48, affine=False).cuda()
c = torch.randn(16, 48, device='cuda', requires_grad=True)
y1 = bn1(c)
y2 = bn1(c * 2)
try:
    (y1.sum() + y2.sum()).backward()
    print(c.grad.shape, used())
except RuntimeError as e:
    print(type(e).__name__, str(e)[:60])
bn.eval()
ye = bn(a)
ye.sum().backward()
print(used())
