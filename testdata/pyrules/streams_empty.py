# empty_cache with segments in several streams' pools: the caching
# allocator keeps one set of free blocks ordered by (stream, size,
# address), streams compared by their cudaStream_t handles, and
# release_cached_blocks frees its whole segments in that order (large
# pool, then small). The driver's handles of PyTorch's pooled streams:
# are they in the order the pool created them (slot by slot, priority 0
# to -3 within a slot)?
import torch

MiB = 2**18  # float32 elements in 1 MiB
ss = [torch.cuda.Stream() for _ in range(3)]
hi = torch.cuda.Stream(priority=-1)
lo = torch.cuda.Stream(priority=-3)
made = [ss[0], hi, lo, ss[1], ss[2]]
print(sorted(range(5), key=lambda i: made[i].cuda_stream))
sizes = [(hi, 20), (ss[2], 26), (None, 24), (lo, 28), (ss[0], 30), (ss[1], 22), (ss[1], 12), (hi, 14), (None, 16)]
keep = []
for st, mib in sizes:
    with torch.cuda.stream(st):
        keep.append(torch.empty(mib * MiB, device='cuda'))
small = []
for st in (lo, None, ss[1], hi):
    with torch.cuda.stream(st):
        small.append(torch.empty(1000, device='cuda'))
del keep, small
torch.cuda.empty_cache()
print(torch.cuda.memory_reserved())
with torch.cuda.stream(ss[2]):
    a = torch.empty(24 * MiB, device='cuda')
with torch.cuda.stream(hi):
    b = torch.empty(24 * MiB, device='cuda')
c = torch.empty(24 * MiB, device='cuda')
with torch.cuda.stream(ss[0]):
    e = torch.empty(24 * MiB, device='cuda')
del a, b, c, e
torch.cuda.empty_cache()
print(torch.cuda.memory_reserved())
