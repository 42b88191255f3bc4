# Printing CUDA tensors whose values the tool does not know: an integer
# or bool tensor's formatter allocates by its layout alone; a floating
# one's by its values (how many are nonzero and finite, whether they are
# whole, their range), which the tool cannot know.
import torch

r = torch.randint(0, 10, (3, 4), device='cuda')
print(r)
print(r.t())
print(torch.rand(3, device='cuda') > 0.5)
n = torch.randn(4, device='cuda')
print(n)
print(n.abs() + 1)
