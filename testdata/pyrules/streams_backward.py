# Backward across streams: PyTorch's autograd runs each backward op on the
# stream its forward op ran on; a gradient that goes to an op of another
# stream is record_stream'ed to that stream (its free waits for it); a
# gradient summed from several streams is summed on the stream of the op
# that takes it; a leaf's AccumulateGrad runs on the stream current when
# the forward first used the leaf. 0.5 s sleeps on both streams keep their
# events pending through each backward, so that no free completes before
# the synchronize after it.
import torch

s = torch.cuda.Stream()
x = torch.randn(512, 1024, device='cuda')
w1 = torch.randn(1024, 1024, device='cuda', requires_grad=True)
w2 = torch.randn(1024, 1024, device='cuda', requires_grad=True)


def pending():
    with torch.cuda.stream(s):
        torch.cuda._sleep(1_000_000_000)
    torch.cuda._sleep(1_000_000_000)


def state():
    st = torch.cuda.memory_stats()
    return st['active_bytes.all.current'], st['allocated_bytes.all.current'], torch.cuda.memory_reserved()


# The first layer on the side stream, the second and the loss on the default one.
with torch.cuda.stream(s):
    h = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (h @ w2).relu().sum()
del h
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
print(state())
del y, z
# Again, .grad already there: accumulated on each leaf's stream.
with torch.cuda.stream(s):
    h = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (h @ w2).relu().sum()
del h
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w1.grad = None
w2.grad = None
torch.cuda.synchronize()
print(state())
# Everything on the side stream, backward called on the default one.
with torch.cuda.stream(s):
    y = (x @ w1 @ w2).relu().sum()
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w1.grad = None
w2.grad = None
# The forward on the default stream, backward called inside torch.cuda.stream(s).
y = (x @ w1).relu().sum()
pending()
with torch.cuda.stream(s):
    y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z
w1.grad = None
# One weight used on both streams: its gradient summed from both.
with torch.cuda.stream(s):
    a = x @ w1
b = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (a * b).sum()
del a, b
pending()
y.backward()
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
print(state())
del y, z
g = w1.grad
w1.grad = None
del g
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del z
# autograd.grad of a graph over both streams.
with torch.cuda.stream(s):
    h = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (h @ w2).sum()
del h
pending()
g1, g2 = torch.autograd.grad(y, [w1, w2])
print(state())
torch.cuda.synchronize()
z = torch.empty(512, 1024, device='cuda')
del y, z, g1, g2
torch.cuda.synchronize()
torch.cuda.empty_cache()
print(state())
