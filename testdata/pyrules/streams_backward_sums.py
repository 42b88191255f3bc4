# Backward across streams, gradients summed from several ops: a tensor
# made on a side stream and used twice on the default one (its two
# gradients both cross: the second summed in place on the side stream,
# or into a new tensor there when the first is a sum's expanded
# gradient), outputs of one chunk on the side stream used on the default
# one, and a backward with retain_graph run twice. 0.5 s sleeps on both
# streams keep their events pending through each backward.
import torch

s = torch.cuda.Stream()
x = torch.randn(512, 1024, device='cuda')
w = torch.randn(1024, 1024, device='cuda', requires_grad=True)


def pending():
    with torch.cuda.stream(s):
        torch.cuda._sleep(1_000_000_000)
    torch.cuda._sleep(1_000_000_000)


def state():
    st = torch.cuda.memory_stats()
    return st['active_bytes.all.current'], st['allocated_bytes.all.current'], torch.cuda.memory_reserved()


# Two dense gradients for h: the second added into the first on s.
with torch.cuda.stream(s):
    h = x @ w
torch.cuda.current_stream().wait_stream(s)
y = (h.relu() + h * 2).sum()
del h
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w.grad = None
# A sum's expanded gradient first, then a dense one: their sum is new, on s.
with torch.cuda.stream(s):
    h = x @ w
torch.cuda.current_stream().wait_stream(s)
y = (h * 2).sum() + h.sum()
del h
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w.grad = None
# chunk on the side stream, its outputs used on the default one.
with torch.cuda.stream(s):
    h = x @ w
    a, b = h.chunk(2, dim=1)
torch.cuda.current_stream().wait_stream(s)
y = (a * 3).sum() + (b * 5).sum()
del h, a, b
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w.grad = None
# retain_graph: the same graph over both streams run twice.
with torch.cuda.stream(s):
    h = x @ w
torch.cuda.current_stream().wait_stream(s)
y = (h * 2).relu().sum()
del h
pending()
y.backward(retain_graph=True)
print(state())
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w.grad = None
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(state())
