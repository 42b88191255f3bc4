# __del__ runs when the last reference goes: on del, on rebinding (after
# the new value is made), in del a, b order, and a list, tuple or dict
# lets its items go in the order CPython's deallocators use.
import torch

N = 1 << 20  # 4 MiB of float32


class Noisy:
    def __init__(self, name):
        self.name = name
        self.t = torch.empty(N, device='cuda')

    def __del__(self):
        print(f"  del {self.name}: {torch.cuda.memory_allocated() >> 20} MiB at __del__")


a = Noisy("a")
del a
a = Noisy("a1")
a = Noisy("a2")
b = Noisy("b")
del a, b
l = [Noisy("l0"), Noisy("l1"), Noisy("l2")]
del l
l = [Noisy("c0"), Noisy("c1"), Noisy("c2")]
l.clear()
t = (Noisy("t0"), Noisy("t1"), Noisy("t2"))
del t
d = {"d0": Noisy("d0"), "d1": Noisy("d1"), "d2": Noisy("d2")}
del d
d = {"e0": Noisy("e0"), "e1": Noisy("e1")}
d.clear()
x = Noisy("x")
x.other = Noisy("y")
del x
print("all gone: %d MiB" % (torch.cuda.memory_allocated() >> 20))
