# hardtanh_ under autograd: F.relu6 and F.hardtanh with inplace=True, and
# nn.ReLU6(inplace=True), write their input where it is; with grad, the
# generated code first clones the input (hardtanh_ takes hardtanh's
# formula, which reads the input), the node keeps the clone until
# backward. Each case forward, then backward: float32 and float16, other
# bounds, a transposed (non-contiguous) input, a module trained two
# steps; then under no_grad and inference_mode, where nothing is cloned.
import torch
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.randn(1 << 20, device='cuda', requires_grad=True)
y = x * 2
torch.cuda.reset_peak_memory_stats()
z = F.relu6(y, inplace=True)
print(f"relu6_: {used()} {peak()} {z is y} {z.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
z.sum().backward()
print(f"relu6_ backward: {used()} {peak()}")
del y, z
x.grad = None
y = x * 2
z = F.hardtanh(y, -2.0, 2.0, inplace=True)
print(f"hardtanh_: {used()} {z.grad_fn.name()}")
z.sum().backward()
print(f"hardtanh_ backward: {used()} {peak()}")
del y, z
x.grad = None
h = torch.randn(1 << 20, device='cuda', dtype=torch.float16, requires_grad=True)
y = h * 2
z = F.relu6(y, inplace=True)
print(f"relu6_ float16: {used()} {z.dtype}")
z.sum().backward()
print(f"relu6_ float16 backward: {used()} {peak()}")
del y, z, h
m = torch.randn(1024, 512, device='cuda', requires_grad=True)
y = (m * 2).t()
z = F.relu6(y, inplace=True)
print(f"relu6_ transposed: {used()} {z.is_contiguous()} {z.stride()}")
z.sum().backward()
print(f"relu6_ transposed backward: {used()} {peak()}")
del y, z, m
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU6(inplace=True), torch.nn.Linear(1024, 512), torch.nn.ReLU6(inplace=True)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(256, 512, device='cuda')
for step in range(2):
    opt.zero_grad()
    out = model(inputs)
    print(f"model forward {step}: {used()}")
    out.sum().backward()
    opt.step()
    print(f"model step {step}: {used()} {peak()}")
del out
with torch.no_grad():
    y = x * 2
    z = F.relu6(y, inplace=True)
    print(f"relu6_ no_grad: {used()} {z.grad_fn}")
    del y, z
with torch.inference_mode():
    y = x * 2
    z = F.hardtanh(y, inplace=True)
    print(f"hardtanh_ inference_mode: {used()}")
    del y, z
print(f"end: {used()} {peak()}")
