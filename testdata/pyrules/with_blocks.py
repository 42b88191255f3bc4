# with and finally: the as-name outlives the block, __exit__ runs at its end (on
# a suppressed exception too), a contextmanager's frame lives through it, no_grad.
import contextlib
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


class Scratch:
    def __enter__(self):
        self.buf = torch.empty(N, device='cuda')
        return self
    def __exit__(self, kind, value, tb):
        print(f"  __exit__ ({kind.__name__ if kind else None}): {used()} MiB")
        self.buf = None
        return kind is KeyError


with Scratch() as s:
    print(f"  in the block: {used()} MiB")
with Scratch() as s:
    raise KeyError("suppressed")
print(f"after: {used()} MiB, s still bound: {type(s).__name__}")
@contextlib.contextmanager
def scratch():
    buf = torch.empty(2 * N, device='cuda')
    yield buf.numel()
with scratch() as n:
    print(f"  contextmanager block: {used()} MiB for {n:,} elements")
print("after it: %d MiB" % used())
w = torch.ones(N, device='cuda', requires_grad=True)
with torch.no_grad():
    y = (w * 2).relu()
print("no_grad relu: %d MiB, y.requires_grad=%s" % (used(), y.requires_grad))
try:
    t = torch.empty(N, device='cuda')
finally:
    del t
print("try/finally deleted t: %d MiB" % used())
