# More advanced-indexing errors: a value whose leading 1s do not save it,
# index tensors that do not broadcast in an assignment on the GPU, a
# CUDA index of a host tensor, indices that broadcast. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(3, 4, device='cuda')
c = torch.zeros(3, 4)
x[[0, 1]] = torch.ones(1, 3, 4, device='cuda')
x[[0, 1]] = torch.ones(1, 1, 4, device='cuda')
x[[0, 1], [0, 1, 2]] = torch.ones(3, device='cuda')
x[[0, 1], [0, 1, 2]] = 1.0
y = c[torch.tensor([0, 1], device='cuda')]
c[torch.tensor([0, 1], device='cuda')] = 1.0
y = x[[[0], [1]], [0, 1, 2]]
print(tuple(y.shape), used())
del y
y = c[[[0], [5]], [0, 9, 2]]
y = c[[5, 0], [9, 0]]
y = c[[[0], [1]], [0, 1, 2]]
print(tuple(y.shape))
y = x[[[0], [1]], [0, 9, 2]]
print(used())
