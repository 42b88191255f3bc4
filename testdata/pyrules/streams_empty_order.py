# empty_cache's order among many side streams: ten streams of priority 0
# made first in a fresh process, a segment of its own size on each; the
# caching allocator frees them by the driver's handles, which do not
# follow the streams' order of creation past the seventh.
import torch

MiB = 2**18  # float32 elements in 1 MiB
ss = [torch.cuda.Stream() for _ in range(10)]
print(sorted(range(10), key=lambda i: ss[i].cuda_stream))
keep = []
for i, st in enumerate(ss):
    with torch.cuda.stream(st):
        keep.append(torch.empty((12 + 2 * i) * MiB, device='cuda'))
del keep
torch.cuda.empty_cache()
print(torch.cuda.memory_reserved())
