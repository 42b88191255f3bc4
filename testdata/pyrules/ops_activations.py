# Activations the census of model code uses (relu6, hardswish,
# hardsigmoid, softplus, elu, mish, F.sigmoid, relu_, hardtanh, leaky_relu
# in place) forward and backward; then nn.ReLU6, nn.Hardswish and
# nn.Hardsigmoid in a model trained, under bf16 autocast, checkpointed, and
# in inference under no_grad and inference_mode.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
import torch.nn.functional as F
x = torch.randn(1 << 20, device='cuda', requires_grad=True)
y = F.relu6(x)
print(f"relu6: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"relu6 backward: {used()} {peak()}")
del y
x.grad = None
y = F.hardswish(x)
print(f"hardswish: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"hardswish backward: {used()} {peak()}")
del y
x.grad = None
y = F.hardsigmoid(x)
print(f"hardsigmoid: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"hardsigmoid backward: {used()} {peak()}")
del y
x.grad = None
y = F.softplus(x)
print(f"softplus: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"softplus backward: {used()} {peak()}")
del y
x.grad = None
y = F.elu(x)
print(f"elu: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"elu backward: {used()} {peak()}")
del y
x.grad = None
y = F.mish(x)
print(f"mish: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"mish backward: {used()} {peak()}")
del y
x.grad = None
y = F.sigmoid(x)
print(f"F.sigmoid: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"F.sigmoid backward: {used()} {peak()}")
del y
x.grad = None
y = F.relu_(x * 2)
print(f"F.relu_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"F.relu_ backward: {used()} {peak()}")
del y
x.grad = None
y = F.hardtanh(x)
print(f"hardtanh: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"hardtanh backward: {used()} {peak()}")
del y
x.grad = None
y = F.leaky_relu(x * 2, 0.2, inplace=True)
print(f"leaky_relu_: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"leaky_relu_ backward: {used()} {peak()}")
del y
x.grad = None
m = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU6(), torch.nn.Linear(1024, 1024), torch.nn.Hardswish(), torch.nn.Hardsigmoid()).cuda()
inp = torch.randn(256, 1024, device='cuda')
print(f"model: {used()}")
out = m(inp)
print(f"train forward: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"train backward: {used()} {peak()}")
del out
with torch.autocast('cuda', dtype=torch.bfloat16):
    out = m(inp)
    print(f"autocast forward: {used()} {out.dtype}")
out.sum().backward()
print(f"autocast backward: {used()}")
del out
from torch.utils.checkpoint import checkpoint
out = checkpoint(m, inp, use_reentrant=False)
print(f"checkpoint forward: {used()}")
torch.cuda.reset_peak_memory_stats()
out.sum().backward()
print(f"checkpoint backward: {used()} {peak()}")
del out
m.zero_grad(set_to_none=True)
m.eval()
with torch.no_grad():
    out = m(inp)
print(f"no_grad: {used()}")
del out
with torch.inference_mode():
    out = m(inp)
print(f"inference_mode: {used()}")
del out, m, inp, x
print(f"end: {used()}")
