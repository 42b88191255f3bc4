# Arithmetic on values the tool knows prints as PyTorch prints it, and
# an integral tensor with a Python float makes the default float dtype
# (its size), on the host and on CUDA.
import torch

a = torch.arange(5)
print(a * 2, a + 1, a - 3, 2 - a, a * a, 10 + a)
print(a / 2, (a + 1) / 3, torch.ones(2, 3) * 0.5)
b = a * 2.5
print(b, b.dtype, b.element_size())
f = torch.arange(4, dtype=torch.float32)
print(f / 3, f * 0.1, (f + 1) * (f - 1))
print(torch.zeros(3) + torch.tensor(2.), torch.tensor([1, 2]) * torch.tensor([3, 4]))
print((a * 2).tolist(), (f / 3)[1].item(), (f * 0.1).tolist())
g = torch.arange(1 << 20, device='cuda')
h = g * 0.5
print(h.dtype, torch.cuda.memory_allocated())
k = torch.arange(6, device='cuda').view(2, 3) * 3 + 1
print(k, k.tolist())
print(torch.arange(3, dtype=torch.float64) / 7)
