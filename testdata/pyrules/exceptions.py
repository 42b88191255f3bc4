# Exceptions: a traceback keeps the raising frames' locals alive; `except E as
# e` deletes e at the handler's end; an exception kept elsewhere keeps them.
import torch
import traceback

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


def boom():
    local = torch.empty(N, device='cuda')
    raise ValueError("boom with %d MiB live" % used())


try:
    boom()
except ValueError as e:
    print(f"in the handler: {used()} MiB ({e})")
print(f"after the handler: {used()} MiB")
try:
    boom()
except ValueError:
    print(f"handler without a name: {used()} MiB")
try:
    boom()
except ValueError as e:
    err = e
print(f"err kept: {used()} MiB, frames {len(traceback.extract_tb(err.__traceback__))}")
err.__traceback__ = None
print(f"traceback dropped: {used()} MiB")
try:
    boom()
except ValueError as e:
    err = e
traceback.clear_frames(err.__traceback__)
print("frames cleared, err kept: %d MiB" % used())
boom()
print("uncaught at top level, then: %d MiB" % used())
