# Closures: a cell keeps a local alive after its function returned; a module
# level lambda names a global (no capture); its default lives with it; nonlocal.
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


def make_scale():
    w = torch.empty(N, device='cuda')
    return lambda x: x * w


scale = make_scale()
print(f"cell keeps w: {used()} MiB, free vars {scale.__code__.co_freevars}")
del scale
print(f"closure deleted: {used()} MiB")
t = torch.empty(N, device='cuda')
g = lambda: t.numel()
del t
print(f"global t deleted under the lambda: {used()} MiB")
g()
h = lambda t=torch.empty(N, device='cuda'): t.numel()
print("default of a lambda: %d MiB, %d elements" % (used(), h()))
del g, h


def make_grow():
    buf = torch.empty(N, device='cuda')
    def grow():
        nonlocal buf
        buf = torch.empty(2 * N, device='cuda')
    return grow


grow = make_grow()
grow()
print("nonlocal rebound the cell: %d MiB" % used())
del grow
print("all gone: %d MiB" % used())
