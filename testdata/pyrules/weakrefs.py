# Weak references keep nothing alive: a weakref's callback runs as the
# tensor dies, a WeakValueDictionary entry goes with its value, and
# weakref.finalize runs once.
import weakref
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20
t = torch.empty(N, device='cuda')
r = weakref.ref(t, lambda ref: print(f"  callback: {used()} MiB"))
print(f"weakref made: {used()} MiB, alive {r() is not None}")
del t
print(f"tensor deleted: {used()} MiB, alive {r() is not None}")
cache = weakref.WeakValueDictionary()
cache["a"] = torch.empty(N, device='cuda')
print("value only weakly held: %d MiB, %d entries" % (used(), len(cache)))
keep = torch.empty(N, device='cuda')
cache["b"] = keep
print("held elsewhere: %d MiB, keys %s" % (used(), sorted(cache.keys())))
del keep
print("dropped: %d MiB, %d entries" % (used(), len(cache)))
u = torch.empty(N, device='cuda')
fin = weakref.finalize(u, print, "  finalized")
u = None
print("finalizer alive after: %s, %d MiB" % (fin.alive, used()))
