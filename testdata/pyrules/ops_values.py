# Values the tool knows (constants, ranges, copies and views of them):
# item() and tolist() give them as PyTorch does, in Python's types; on
# CUDA each is a synchronizing read that allocates nothing.
import torch

a = torch.arange(6, device='cuda')
print(a.tolist(), a.view(2, 3).tolist(), a[2].item(), type(a[2].item()).__name__)
z = torch.zeros(2, 2, device='cuda')
print(z.tolist(), torch.ones(3, dtype=torch.bool).tolist(), torch.full((2,), 0.1).tolist())
print(torch.tensor([1.5, 2.5], device='cuda').tolist(), torch.tensor(3).item(), torch.arange(0, 1, 0.25).tolist())
print(torch.ones(2, dtype=torch.float16, device='cuda').tolist(), torch.empty(0).tolist(), torch.zeros(2, 0).tolist())
print(a[1:4].tolist(), a.cpu().tolist(), torch.full((1,), 7, dtype=torch.int32).item())
n = torch.zeros(1024, 1024, device='cuda')[0, 0].item()
print(n, type(n).__name__)
