# A CUDA tensor read through a host index past its dimension's end: the
# index is copied to the GPU first; is it checked on the host?
# `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(3, 4, device='cuda')
y = x[torch.tensor([1, -4])]
print(used())
torch.cuda.synchronize()
