# Reference cycles: with the automatic collector off, a cycle's tensors stay
# until gc.collect(): a self-referencing list, two instances, a closure
# that names itself, a bound method stored on its own instance.
import gc
gc.disable()
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20
gc.collect()
l = [torch.empty(N, device='cuda')]
l.append(l)
del l
print(f"self-referencing list deleted: {used()} MiB")
gc.collect()
print(f"collected: {used()} MiB")
class Node:
    def __init__(self):
        self.t = torch.empty(N, device='cuda')
    def step(self):
        return self.t.numel()
a, b = Node(), Node()
a.peer, b.peer = b, a
del a, b
print("instance cycle deleted: %d MiB" % used())
gc.collect()
print("collected: %d MiB" % used())
def make():
    t = torch.empty(N, device='cuda')
    def again():
        return again, t
    return again
f = make()
del f
n = Node()
n.hook = n.step
del n
print("closure and bound-method cycles deleted: %d MiB" % used())
gc.collect()
print("collected: %d MiB, gc enabled: %s" % (used(), gc.isenabled()))
