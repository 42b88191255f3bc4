# Functions: locals die at return, a return value lives while bound,
# arguments live through the call, a default argument lives with its
# function, recursion keeps every frame's locals, lru_cache keeps results.
import functools
import torch

N = 1 << 20  # 4 MiB of float32


def used():
    return torch.cuda.memory_allocated() >> 20


def work():
    a = torch.empty(N, device='cuda')
    b = torch.empty(N, device='cuda')
    print("  inside work: %d MiB" % used())
    return b


kept = work()
print("kept its result: %d MiB" % used())
work()
print("result discarded: %d MiB" % used())
print("argument alive in the call: %d" % (lambda t: used())(torch.empty(N, device='cuda')))
def with_default(t=torch.empty(2 * N, device='cuda')): return t.numel()
print(f"default held by the function: {used()} MiB, {with_default():,} elements")
del with_default
print(f"function deleted: {used()} MiB")
def depth(n): t = torch.empty(N, device='cuda'); return depth(n - 1) if n else used()
print(f"recursion 3 deep: {depth(3)} MiB at the bottom, {used()} after")
def star(*args, **kwargs): return used()
print("*args, **kwargs alive in the call: %d" % star(*[torch.empty(N, device='cuda')] * 2, k=torch.empty(N, device='cuda')))
@functools.lru_cache(maxsize=None)
def cached(n): return torch.empty(n * N, device='cuda')
cached(1), cached(1), cached(2)
print(f"lru_cache keeps two results: {used()} MiB, {cached.cache_info().hits} hit")
cached.cache_clear()
del kept
print(f"cache cleared, kept deleted: {used()} MiB")
