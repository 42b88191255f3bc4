# Values through comparisons, one-input math and reductions on values the
# tool knows (ranges, constants and arithmetic on them): print, item()
# and tolist() as PyTorch gives them, bool tensors, PyTorch's number
# formats (integral floats, four decimals, scientific notation); in-place
# updates of known values.
import torch

a = torch.arange(6., device='cuda').view(2, 3)
print(a == 2, a < 3, a >= 1.5, a != a, 2 > a)
print(a.eq(4).tolist(), (a > 2).sum(), (a > 2).sum().item(), (a > 2).any(), (a > 2).all())
print(-a, a.abs(), (a - 2).abs(), (a - 2).relu(), torch.relu(2 - a))
print(a.sqrt(), a.exp(), (a + 1).log(), a.sigmoid(), a.tanh())
print(a.exp().tolist(), a.sqrt()[1, 1].item(), (a + 1).log().tolist())
print(a ** 2, a.pow(3), a.square(), a.clamp(1, 4), a.clamp(min=2), a.clamp(max=3))
print(torch.where(a > 2, a, 0.), a.masked_fill(a < 2, -1.))
print(a.sum(), a.sum(0), a.sum(1), a.sum(1, keepdim=True), a.mean(), a.mean(0), a.mean(dim=1))
print(a.max(), a.min(), a.argmax(), a.argmin(), a.max(1), a.min(0))
print(a.std(), a.var(), a.var(1), a.norm(), a.cumsum(1), a.cumsum(0))
print(a.sum().item(), a.mean().item(), a.std().item(), a.norm().item(), a.max().item(), a.argmax().item())
i = torch.arange(6, device='cuda')
print(i.sum(), i.max(), i.cumsum(0), i == 3, -i, i.abs(), i * 1.5, i.float().mean(), i.sum().item())
b = torch.tensor([True, False, True], device='cuda')
print(b, ~b, b.sum(), b & b, b | ~b, b.int(), b.float())
print(torch.tensor([1e-5, 1.0]), torch.tensor([1.0, 2000.0]), torch.tensor([1e9, 1.0]), torch.tensor([0.5, 1e8]), torch.tensor([1.5, -2.25, 100.0]))
print(torch.tensor([0.1, 0.2]) + 0.1, torch.arange(1, 4.) / 3, torch.full((2,), 1 / 3))
c = torch.zeros(3, device='cuda')
c += 1
c.mul_(4)
c[1] = 7
print(c, c.add_(0.5), c.zero_(), c.fill_(2.5))
print(torch.ones(2, 2, device='cuda').sum(), torch.ones(3, dtype=torch.float16, device='cuda').sum(), torch.arange(4.).half().exp())
print(torch.arange(4., device='cuda').mean().item() > 1)
if (a > 2).any():
    print("branch on a known value")
r = torch.rand(3, device='cuda')
print((r > 0.5).sum().item() if False else "skip")
