# Assignment through advanced indexing on the H200: x[[0, 2]] = v,
# x[idx] = v, x[:, idx] = v, two index tensors, a host index tensor, a
# tensor value, and x[idx] += v (a read, an add, a write back), without
# autograd. `--events`.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.zeros(1024, 1024, device='cuda')
idx = torch.tensor([0, 5, 9], device='cuda')
v = torch.ones(3, 1024, device='cuda')
torch.cuda.reset_peak_memory_stats()
x[[0, 2]] = 1.0
print(f"list = number: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[idx] = 2.0
print(f"tensor = number: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[idx] = v
print(f"tensor = tensor: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[:, idx] = 3.0
print(f"columns = number: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[idx, idx] = 4.0
print(f"two indices: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[torch.tensor([1, 3])] = 5.0
print(f"host index: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[idx] += v
print(f"+=: {used()} {peak()}")
torch.cuda.reset_peak_memory_stats()
x[[1, 2, 3]] = torch.ones(1024, device='cuda')
print(f"broadcast value: {used()} {peak()}")
print(x[0, 0].item(), x[5, 0].item(), x[1, 0].item())
