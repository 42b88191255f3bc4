# Type promotion of two tensors of different dtypes (both with
# dimensions), which PyTorch's TensorIterator runs without converting
# copies on the GPU: the output's dtype and size, the backward's
# gradients (each computed in the promoted dtype, then converted to its
# input's by autograd's validate_outputs), and 0-d tensors and Python
# numbers beside them, which count only when of a higher category.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
h = torch.randn(1024, 1024, device='cuda', dtype=torch.float16, requires_grad=True)
f = torch.randn(1024, 1024, device='cuda', requires_grad=True)
b = torch.randn(1024, 1024, device='cuda', dtype=torch.bfloat16, requires_grad=True)
i = torch.randint(0, 9, (1024, 1024), device='cuda', dtype=torch.int32)
y = h * f
print(f"f16 * f32: {y.dtype} {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"f16 * f32 backward: {h.grad.dtype} {f.grad.dtype} {used()} {peak()}")
del y
h.grad = None
f.grad = None
y = h + b
print(f"f16 + bf16: {y.dtype} {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"f16 + bf16 backward: {h.grad.dtype} {b.grad.dtype} {used()} {peak()}")
del y
h.grad = None
b.grad = None
y = f[0] - h
print(f"f32 row - f16: {y.dtype} {used()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"f32 row - f16 backward: {h.grad.dtype} {f.grad.dtype} {used()} {peak()}")
del y
h.grad = None
f.grad = None
with torch.no_grad():
    y = i * h
    print(f"int32 * f16: {y.dtype} {used()}")
    del y
    y = i + 2.5
    print(f"int32 + 2.5: {y.dtype} {used()}")
    del y
    y = i * torch.tensor(2.5, dtype=torch.float64, device='cuda')
    print(f"int32 * 0-d f64: {y.dtype} {used()}")
    del y
    y = h * torch.tensor(2.0, device='cuda')
    print(f"f16 * 0-d f32: {y.dtype} {used()}")
    del y
    y = (i > 4) + 1
    print(f"bool + 1: {y.dtype} {used()}")
    del y
    y = i.to(torch.uint8) + i.to(torch.int8)
    print(f"uint8 + int8: {y.dtype} {used()}")
    del y
    h.add_(f)
    print(f"f16.add_(f32): {h.dtype} {used()}")
try:
    i.add_(f)
except RuntimeError as e:
    print(f"int32.add_(f32): {e}")
