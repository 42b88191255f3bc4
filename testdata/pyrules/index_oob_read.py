# A CUDA tensor read at an index past its dimension's end (an index
# tensor on the GPU): the kernel's device-side assert, and where it
# surfaces. The process's CUDA context is unusable after it. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(3, 4, device='cuda')
idx = torch.tensor([0, 5], device='cuda')
y = x[idx]
print(used())
torch.cuda.synchronize()
print(used())
z = torch.zeros(2, device='cuda')
