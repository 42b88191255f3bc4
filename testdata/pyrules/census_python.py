# The PyTorch that model code names beyond tensors, run as PyTorch 2.11 runs
# it in eager mode: torch.jit's and torch.fx's decorators and queries (no-ops
# outside scripting and tracing), torch._assert, finfo and
# iinfo (their values and reprs), the autocast queries (torch.compile is
# not here: PyTorch compiles, the tool runs eagerly); and what users hit
# first: `p.requires_grad = False`, @torch.no_grad() and
# @torch.inference_mode() on a method, nn.Linear's positional device and
# bfloat16 dtype, torch.multinomial, torch.as_tensor,
# torch.set_default_tensor_type.
import torch
import torch.nn as nn
import torch.nn.functional as F

used = lambda: torch.cuda.memory_allocated()
print(torch.jit.is_scripting(), torch.jit.is_tracing(), torch._C._get_tracing_state())


@torch.jit.ignore
def helper(t):
    return t * 2


@torch.jit.unused
def unused_helper(t):
    return t + 1


@torch.fx.wrap
def wrapped(t):
    return t - 1


torch.fx.wrap("len")
print(helper.__name__, unused_helper.__name__, wrapped.__name__)


class Block(nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.scale = 0.5
        self.fc = nn.Linear(1024, 1024, True, 'cuda')

    @torch.jit.ignore(drop=True)
    def extra(self):
        return 1

    @torch.jit.unused
    def slow(self, t):
        return t

    def forward(self, t):
        if torch.jit.is_scripting() or torch.jit.is_tracing():
            return t
        torch._assert(t.dim() == 2, "want a matrix")
        return self.fc(t) * self.scale

    @torch.no_grad()
    def generate(self, t, steps=2):
        for _ in range(steps):
            t = self(t)
        return t

    @torch.inference_mode()
    def infer(self, t):
        return self(t)


blk = Block()
print(f"block: {used()} {blk.fc.weight.device} {blk.scale} {blk.extra()}")
inp = torch.randn(64, 1024, device='cuda')
out = blk.generate(inp)
print(f"generate: {used()} {out.requires_grad}")
out = blk.infer(inp)
print(f"infer: {used()} {out.is_inference()}")
del out
try:
    torch._assert(inp.dim() == 3, "want three dimensions")
except AssertionError as e:
    print("AssertionError", e)
torch._assert(True, "fine")
for p in blk.parameters():
    p.requires_grad = False
print([p.requires_grad for p in blk.parameters()])
blk.fc.bias.requires_grad = True
out = blk(inp)
print(f"frozen weight: {used()} {out.grad_fn.name()}")
out.sum().backward()
print(f"frozen backward: {used()} {blk.fc.weight.grad is None} {blk.fc.bias.grad.shape}")
del out
t = torch.zeros(4, device='cuda')
t.requires_grad = True
print(t.requires_grad, t.is_leaf)
try:
    (t * 2).requires_grad = False
except RuntimeError as e:
    print("RuntimeError", e)
del t
print(torch.finfo(torch.float32))
print(torch.finfo(torch.float16))
print(torch.finfo(torch.bfloat16))
print(torch.finfo(torch.float64))
print(torch.finfo())
f = torch.finfo(torch.float16)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype)
f = torch.finfo(torch.bfloat16)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.resolution)
f = torch.finfo(torch.float32)
print(f.bits, f.eps, f.max, f.min, f.tiny, f.resolution)
print(torch.finfo(inp.dtype).min == torch.finfo(torch.float32).min)
print(torch.iinfo(torch.int64))
print(torch.iinfo(torch.int32))
print(torch.iinfo(torch.int16))
print(torch.iinfo(torch.int8))
print(torch.iinfo(torch.uint8))
i = torch.iinfo(torch.int64)
print(i.bits, i.max, i.min, i.dtype)
try:
    torch.finfo(torch.int32)
except TypeError as e:
    print("TypeError", e)
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print("TypeError", e)
print(torch.get_autocast_gpu_dtype(), torch.is_autocast_enabled())
with torch.autocast('cuda', dtype=torch.bfloat16):
    print(torch.get_autocast_gpu_dtype(), torch.is_autocast_enabled(), torch.is_autocast_enabled('cuda'))
with torch.autocast('cuda'):
    print(torch.get_autocast_gpu_dtype(), torch.get_autocast_dtype('cuda'))
print(torch.cuda.is_bf16_supported(), torch.pi, torch.distributed.is_available(), torch.distributed.is_initialized())
print(torch.backends.cuda.matmul.allow_tf32, torch.backends.mps.is_available(), torch._dynamo.is_compiling(), torch.compiler.is_compiling())
lin = nn.Linear(1024, 512, True, 'cuda', torch.bfloat16)
print(f"bf16 linear: {used()} {lin.weight.dtype} {lin.weight.device}")
lin2 = nn.Linear(1024, 512, bias=False, device='cuda', dtype=torch.bfloat16)
print(f"bf16 linear keywords: {used()} {lin2.weight.dtype}")
y = lin(inp.bfloat16())
print(f"bf16 forward: {used()} {y.dtype}")
del y, lin, lin2
probs = torch.softmax(torch.randn(8, 50304, device='cuda'), dim=-1)
print(f"probs: {used()}")
nxt = torch.multinomial(probs, num_samples=1)
print(f"multinomial: {used()} {nxt.shape} {nxt.dtype}")
nxt = torch.multinomial(probs, 4, replacement=True)
print(f"multinomial 4: {used()} {nxt.shape}")
del nxt, probs
a = torch.as_tensor([1.0, 2.0, 3.0], device='cuda')
print(f"as_tensor list: {used()} {a.dtype}")
b = torch.as_tensor(a)
print(f"as_tensor same: {used()} {b is a}")
c = torch.as_tensor(a, dtype=torch.float16)
print(f"as_tensor cast: {used()} {c.dtype}")
d = torch.as_tensor(inp.cpu(), device='cuda')
print(f"as_tensor to cuda: {used()}")
del a, b, c, d
torch.set_default_tensor_type(torch.cuda.FloatTensor)
e = torch.zeros(1024, 1024)
print(f"default cuda: {used()} {e.device} {e.dtype}")
torch.set_default_tensor_type('torch.FloatTensor')
g = torch.zeros(1024)
print(f"default cpu: {used()} {g.device}")
del e, g, blk, inp
print(f"end: {used()}")
