# Tensor.record_stream: a block used on another stream is not reused
# until events recorded at its free have completed. The allocator looks
# at them at each allocation (process_events), and waits for them all
# in empty_cache. A long kernel (torch.cuda._sleep) on the side stream
# keeps an event pending for certain; a synchronize completes it.
import torch

N = 8 * 2**20  # float32 elements: 32 MiB, one whole segment
s = torch.cuda.Stream()


def active():
    st = torch.cuda.memory_stats()
    return st['active_bytes.all.current'], st['allocated_bytes.all.current'], st['requested_bytes.all.current']


x = torch.ones(N, device='cuda')
with torch.cuda.stream(s):
    y = x * 2
x.record_stream(s)
x.record_stream(torch.cuda.current_stream())
del x
print(active())
torch.cuda.synchronize()
print(active())
z = torch.empty(N, device='cuda')
print(active())
del y, z
x = torch.ones(N, device='cuda')
with torch.cuda.stream(s):
    torch.cuda._sleep(1_000_000_000)
    y = x * 2
x.record_stream(s)
del x
z = torch.empty(N, device='cuda')
print(active())
s.synchronize()
w = torch.empty(N, device='cuda')
print(active())
del y, z, w
torch.cuda.empty_cache()
x = torch.ones(N, device='cuda')
with torch.cuda.stream(s):
    torch.cuda._sleep(1_000_000_000)
    y = x * 2
x.record_stream(s)
del x
print(active(), torch.cuda.memory_reserved())
torch.cuda.empty_cache()
print(active(), torch.cuda.memory_reserved())
del y
x = torch.ones(N, device='cuda')
with torch.cuda.stream(s):
    torch.cuda._sleep(1_000_000_000)
    y = x * 2
x.record_stream(s)
del x
e = torch.cuda.Event()
e.record(s)
z = torch.empty(N, device='cuda')
e.synchronize()
print(e.query(), active())
w = torch.empty(N, device='cuda')
print(active())
del y, z, w
with torch.cuda.stream(s):
    a = torch.ones(N, device='cuda')
    torch.cuda._sleep(1_000_000_000)
b = a * 2
torch.cuda._sleep(1_000_000_000)
a.record_stream(torch.cuda.current_stream())
del a
with torch.cuda.stream(s):
    c = torch.empty(N, device='cuda')
torch.cuda.current_stream().synchronize()
with torch.cuda.stream(s):
    d = torch.empty(N, device='cuda')
print(active())
del b, c, d
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
