# torch.allclose and torch.isclose: ATen's isclose makes a bool result,
# then the allowed and actual errors (float temporaries), then
# isfinite's; allclose reduces it with all() (a large input: the
# reduction's buffer across blocks).
import torch

MiB = 1 << 20
a = torch.randn(50, device='cuda')
b = a.clone()
print(torch.allclose(a, b))
big = torch.randn(40 * MiB // 4, device='cuda')
big2 = big.clone()
print(torch.allclose(big, big2))
print(big.allclose(big2, rtol=1e-3, atol=1e-6))
c = torch.isclose(a, b)
print(c.dtype, c.shape)
del c
print(torch.allclose(big, big2, rtol=0, atol=0))
print(torch.allclose(big, big2, equal_nan=True))
h = big.to(torch.bfloat16)
h2 = h.clone()
print(torch.allclose(h, h2))
del h, h2
m = torch.randn(1024, 1024, device='cuda')
print(torch.allclose(m, m.t().contiguous().t()))
x = torch.randn(1000)
print(torch.allclose(x, x.clone()))
