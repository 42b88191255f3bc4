# CUDA streams: each stream's cached blocks serve only that stream, from
# torch.cuda.Stream(), torch.cuda.stream(s) and torch.cuda.set_stream.
import torch

N = 8 * 2**20  # float32 elements: 32 MiB, one whole segment
s = torch.cuda.Stream()
print(s.device, s.priority, s == torch.cuda.current_stream(), torch.cuda.current_stream() == torch.cuda.default_stream())
print(torch.cuda.current_stream(), torch.cuda.default_stream().cuda_stream, s.cuda_stream != 0, s.query())
a = torch.empty(N, device='cuda')
del a
with torch.cuda.stream(s):
    print(torch.cuda.current_stream() == s)
    b = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == s)
c = torch.empty(N, device='cuda')
del b
with torch.cuda.stream(s):
    d = torch.empty(N // 2, device='cuda')
    e = torch.empty(N // 2, device='cuda')
f = torch.empty(N // 2, device='cuda')
del c, d, e, f
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(torch.cuda.memory_reserved())
x = torch.empty(1000, device='cuda')
with torch.cuda.stream(s):
    y = torch.empty(1000, device='cuda')
del x, y
torch.cuda.set_stream(s)
g = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == s, g.device)
torch.cuda.set_stream(torch.cuda.default_stream())
del g
h = torch.empty(N, device='cuda')
hi = torch.cuda.Stream(priority=-1)
print(hi.priority, hi == s)
with torch.cuda.stream(hi):
    k = torch.empty(N, device='cuda')
with torch.cuda.stream(None):
    m = torch.empty(1000, device='cuda')
w = torch.ones(1024, 1024, device='cuda')
with torch.cuda.stream(s):
    p = w @ w
q = w @ w
s.wait_stream(torch.cuda.current_stream())
torch.cuda.current_stream().wait_stream(s)
del h, k, m, p, q
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
del w
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
