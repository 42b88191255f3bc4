# torch.utils.data as training scripts use it: batches made on the host
# (a stacked tensor per field), moved to the GPU each step; the previous
# batch lives until the loop rebinds its names; pin_memory=True pins each
# batch (the caching host allocator); shuffle takes the same memory.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split, Dataset

MiB = 1 << 20
x = torch.randn(1000, 1024)
y = torch.randint(0, 10, (1000,))
ds = TensorDataset(x, y)
print(len(ds), ds[0][0].shape, ds[0][1].dtype)
loader = DataLoader(ds, batch_size=256)
print(len(loader))
model = nn.Linear(1024, 10).cuda()
for xb, yb in loader:
    xb, yb = xb.cuda(), yb.cuda()
    loss = nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
print(xb.shape, yb.shape, torch.cuda.memory_allocated())
del xb, yb, loss
first = next(iter(DataLoader(ds, batch_size=512, shuffle=True, drop_last=True)))
print(type(first).__name__, first[0].shape, first[1].dtype)
gpu = [t.cuda(non_blocking=True) for t in first]
torch.cuda.synchronize()
del first, gpu
pinned = DataLoader(ds, batch_size=128, pin_memory=True)
for xb, yb in pinned:
    print(xb.is_pinned(), xb.shape)
    xg = xb.cuda(non_blocking=True)
    yg = yb.cuda(non_blocking=True)
    break
torch.cuda.synchronize()
print(torch.cuda.host_memory_stats()['allocated_bytes.current'] if hasattr(torch.cuda, 'host_memory_stats') else None)
del xb, yb, xg, yg
train, val = random_split(ds, [800, 200])
print(len(train), len(val))
vl = DataLoader(val, batch_size=64)
n = 0
for xb, yb in vl:
    n += xb.shape[0]
print(n)


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {'x': torch.full((256, 1024), float(i)), 'i': i, 'f': i / 2}


for batch in DataLoader(Squares(), batch_size=4):
    print(sorted(batch), batch['x'].shape, batch['i'], batch['f'].dtype)
    g = batch['x'].to('cuda')
print(torch.cuda.memory_allocated())
