# One-input math ops, forward and backward: each makes one tensor of its
# input's size; what autograd saves (input or result) stays until
# backward; backward makes the input's gradient after the temporaries
# its formula needs (abs: sgn; sqrt: 2 * result; pow: self.pow(e - 1)
# and e * that), each statement alone so its peak shows.
import torch

used = lambda: torch.cuda.memory_allocated()
peak = lambda: torch.cuda.max_memory_allocated()
x = torch.rand(1 << 20, device='cuda', requires_grad=True)
y = x.neg()
print(f"neg: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"neg backward: {used()} {peak()}")
del y
x.grad = None
y = x.abs()
print(f"abs: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"abs backward: {used()} {peak()}")
del y
x.grad = None
y = torch.exp(x)
print(f"exp: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"exp backward: {used()} {peak()}")
del y
x.grad = None
y = x.log()
print(f"log: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"log backward: {used()} {peak()}")
del y
x.grad = None
y = x.sqrt()
print(f"sqrt: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sqrt backward: {used()} {peak()}")
del y
x.grad = None
y = x.sigmoid()
print(f"sigmoid: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"sigmoid backward: {used()} {peak()}")
del y
x.grad = None
y = x.tanh()
print(f"tanh: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"tanh backward: {used()} {peak()}")
del y
x.grad = None
y = x.relu()
print(f"relu: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"relu backward: {used()} {peak()}")
del y
x.grad = None
y = torch.nn.functional.silu(x)
print(f"silu: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"silu backward: {used()} {peak()}")
del y
x.grad = None
y = torch.nn.functional.gelu(x)
print(f"gelu: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"gelu backward: {used()} {peak()}")
del y
x.grad = None
y = x.pow(3)
print(f"pow3: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pow3 backward: {used()} {peak()}")
del y
x.grad = None
y = x ** 0.5
print(f"pow_half: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"pow_half backward: {used()} {peak()}")
del y
x.grad = None
y = torch.pow(x, 2)
print(f"square: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"square backward: {used()} {peak()}")
del y
x.grad = None
y = -x
print(f"unary_minus: {used()} {y.grad_fn.name()}")
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"unary_minus backward: {used()} {peak()}")
del y
x.grad = None
odd = torch.rand(1000, 999, device='cuda', requires_grad=True)
y = odd.abs()
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(f"abs of an odd size: {used()} {peak()}")
del y, odd
with torch.no_grad():
    a = x.exp()
    b = x.sqrt()
print(f"no_grad: {used()}")
del a, b, x
print(f"end: {used()}")
