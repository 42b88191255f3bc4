# torch.cuda.Stream as a context manager (torch.Stream's __enter__ and
# __exit__): the stream is current inside and the previous one after,
# nested, mixed with torch.cuda.stream and set_stream, left by an
# exception, the same stream entered twice; StreamContext; device_of and
# device; a Stream's stream_id, device, priority, == and hash.
import torch

N = 8 * 2**20  # float32 elements: 32 MiB, one whole segment
s = torch.cuda.Stream()
t = torch.cuda.Stream(priority=-1)
d = torch.cuda.default_stream()
print(s.stream_id, t.stream_id, d.stream_id, s.device, t.priority, d.priority, s.device_type, t.device_index)
print(s == t, s != t, s == None, s != None, s == 3, s == torch.cuda.Stream(priority=-1), len({s, t, d, torch.cuda.current_stream()}))
with s as r:
    print(r is s, torch.cuda.current_stream() == s)
    a = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == d)
with s:
    with t:
        print(torch.cuda.current_stream() == t)
        b = torch.empty(N, device='cuda')
    print(torch.cuda.current_stream() == s)
    c = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == d)
del a, b, c
try:
    with s:
        e = torch.empty(N, device='cuda')
        raise ValueError('inside')
except ValueError as err:
    print(err, torch.cuda.current_stream() == d)
try:
    with s:
        with s:
            print('nested same', torch.cuda.current_stream() == s)
        print('after inner', torch.cuda.current_stream() == s)
except RuntimeError as err:
    print('RuntimeError', err)
print(torch.cuda.current_stream() == s, torch.cuda.current_stream() == d)
torch.cuda.set_stream(d)
with torch.cuda.stream(s) as r:
    print(r)
    with t:
        f = torch.empty(N, device='cuda')
    print(torch.cuda.current_stream() == s)
print(torch.cuda.current_stream() == d)
torch.cuda.set_stream(s)
with t:
    g = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == s)
torch.cuda.set_stream(d)
with d:
    h = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == d)
ctx = torch.cuda.StreamContext(t)
with ctx:
    print(torch.cuda.current_stream() == t)
    k = torch.empty(N, device='cuda')
print(torch.cuda.current_stream() == d, ctx.stream == t, type(torch.cuda.stream(s)) is torch.cuda.StreamContext)
x = torch.ones(4, device='cuda')
with torch.cuda.device_of(x):
    print(torch.cuda.current_device())
with torch.cuda.device_of(torch.ones(4)):
    print(torch.cuda.current_device())
with torch.cuda.device(0):
    print(torch.cuda.current_device())
del e, f, g, h, k, x
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
