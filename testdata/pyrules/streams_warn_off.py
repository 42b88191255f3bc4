# torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False)
# silences the warning PyTorch gives when a leaf's AccumulateGrad takes a
# gradient made on another stream than its own (streams_backward.py's
# weight used on two streams); True gives it back.
import torch
import torch.autograd.graph as graph

s = torch.cuda.Stream()
x = torch.randn(512, 1024, device='cuda')
w1 = torch.randn(1024, 1024, device='cuda', requires_grad=True)
print(graph.set_warn_on_accumulate_grad_stream_mismatch(False))
with torch.cuda.stream(s):
    a = x @ w1
b = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (a * b).sum()
del a, b
y.backward()
torch.cuda.synchronize()
del y
w1.grad = None
torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(True)
with torch.cuda.stream(s):
    a = x @ w1
b = x @ w1
torch.cuda.current_stream().wait_stream(s)
y = (a * b).sum()
del a, b
y.backward()
torch.cuda.synchronize()
del y
print(torch.autograd.graph.Node.__name__, isinstance(w1.sum().grad_fn, graph.Node))
