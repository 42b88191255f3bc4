# Advanced indexing that PyTorch refuses: a value that does not broadcast
# to the indexed shape, index tensors whose shapes do not broadcast
# together, and indices out of range on the host (IndexError; on the GPU
# a device-side assert: index_oob_*.py). Each error's type and message,
# and what was allocated before it. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
x = torch.zeros(3, 4, device='cuda')
c = torch.zeros(3, 4)
idx = torch.tensor([0, 2], device='cuda')
x[idx] = torch.ones(3, 4, device='cuda')
x[idx] = torch.ones(2, 3, device='cuda')
x[[0, 1]] = torch.ones(3, device='cuda')
x[:, idx] = torch.ones(2, 3, device='cuda')
x[idx, idx] = torch.ones(3, device='cuda')
x[torch.tensor([0, 1])] = torch.ones(4, 4, device='cuda')
x[idx] = torch.ones(1, 4, device='cuda')
x[idx] = torch.ones(1, 2, 4, device='cuda')
x[idx] = torch.ones(2, 2, 4, device='cuda')
c[[0, 1]] = torch.ones(2, 5)
y = x[idx, torch.tensor([0, 1, 2], device='cuda')]
y = x[[0, 1], [0, 1, 2]]
c[[0, 1], [0, 1, 2]] = 1.0
y = c[[5]]
y = c[[0, 3]]
y = c[[-4]]
y = c[:, [4]]
y = c[torch.tensor([0, 7])]
c[[3]] = 1.0
c[torch.tensor([-5])] = torch.ones(4)
c[:, torch.tensor([1, 9])] = 2.0
y = c[[1, 2], [0, 4]]
y = c[[-3]]
print(used())
