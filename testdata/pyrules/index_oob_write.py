# A CUDA tensor written at an index past its dimension's end (a list
# index, made on the GPU): the kernel's device-side assert, and where it
# surfaces. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(3, 4, device='cuda')
x[[0, 3]] = 1.0
print(used())
print(x.sum().item())
print(used())
