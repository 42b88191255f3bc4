# Recorded for later (the tool does not model these yet): reductions
# along an outer dimension, whose kernel splits the input across blocks
# through a buffer sized by its launch configuration, over a few shapes
# and dtypes, each statement alone so the buffer shows in the peak.
import torch

a = torch.rand(64, 4096, device='cuda')
b = torch.rand(4096, 64, device='cuda')
c = torch.rand(8, 1024, 256, device='cuda')
d = torch.rand(1024, 1024, device='cuda', dtype=torch.float16)
e = torch.rand(100000, 10, device='cuda')
torch.cuda.reset_peak_memory_stats()
r1 = a.sum(0)
torch.cuda.reset_peak_memory_stats()
r2 = b.sum(0)
torch.cuda.reset_peak_memory_stats()
r3 = c.sum(1)
torch.cuda.reset_peak_memory_stats()
r4 = d.sum(0)
torch.cuda.reset_peak_memory_stats()
r5 = e.sum(0)
torch.cuda.reset_peak_memory_stats()
r6 = a.max(0)
torch.cuda.reset_peak_memory_stats()
r7 = b.std(0)
torch.cuda.reset_peak_memory_stats()
r8 = c.mean(0)
torch.cuda.reset_peak_memory_stats()
r9 = e.argmax(0)
torch.cuda.reset_peak_memory_stats()
r10 = torch.rand(100000, device='cuda').cumsum(0)
