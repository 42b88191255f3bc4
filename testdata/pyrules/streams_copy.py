# non_blocking copies on a side stream: the copy's output is allocated
# on the stream that is current; the consumer waits for the stream and
# record_stream tells the allocator of the use on the default stream.
import torch

N = 8 * 2**20
s = torch.cuda.Stream()
h = torch.ones(N).pin_memory()
with torch.cuda.stream(s):
    g = h.to('cuda', non_blocking=True)
torch.cuda.current_stream().wait_stream(s)
g.record_stream(torch.cuda.current_stream())
r = g * 2
del g
torch.cuda.synchronize()
t = torch.empty(N, device='cuda')
with torch.cuda.stream(s):
    g2 = h.cuda(non_blocking=True)
    g3 = torch.empty(N, device='cuda')
ev = torch.cuda.Event(enable_timing=True)
ev.record()
ev.wait(s)
s.wait_event(ev)
del g2
with torch.cuda.stream(s):
    g4 = torch.empty(N, device='cuda')
del r, t, g3, g4
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
