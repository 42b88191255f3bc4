# Generators: a suspended generator's frame keeps its locals; exhausting,
# closing or deleting it frees them; a generator expression in sum().
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


def gen():
    t = torch.empty(N, device='cuda')
    try:
        yield 1
        yield 2
    finally:
        print("  finally, %d MiB" % used())


g = gen()
print(f"created, not started: {used()} MiB")
next(g)
print(f"suspended at the first yield: {used()} MiB")
next(g), next(g, None)
print(f"exhausted: {used()} MiB")
g = gen()
next(g)
del g
print(f"deleted while suspended: {used()} MiB")
torch.cuda.reset_peak_memory_stats()
total = sum(torch.ones(N, device='cuda') for _ in range(3))
print("sum over a genexp: %d MiB, peak %d MiB" % (used(), torch.cuda.max_memory_allocated() >> 20))
def chunks(n):
    for i in range(n):
        buf = torch.empty(N, device='cuda')
        yield i
for i in chunks(3):
    print(f"  chunk {i}: {used()} MiB")
print(f"after the loop: {used()} MiB")
