# Names: binding, rebinding, aliases, del, tuple unpacking, augmented
# assignment (in place on a tensor) against x = x + 1, the walrus.
import torch

N = 1 << 20  # 4 MiB of float32


def show(label):
    print("%-22s %3d MiB (peak %d)" % (label, torch.cuda.memory_allocated() >> 20,
                                       torch.cuda.max_memory_allocated() >> 20))


a = torch.zeros(N, device='cuda')
b = a
del a
show("alias kept, a deleted")
a, b = b, torch.zeros(2 * N, device='cuda')
show("a, b = b, new")
a, b = b, a
show("swapped")
torch.cuda.reset_peak_memory_stats()
a += 1
show("a += 1 (in place)")
torch.cuda.reset_peak_memory_stats()
a = a + 1
show("a = a + 1")
c = d = torch.zeros(N, device='cuda')
del c
show("c = d = new; del c")
d = None
show("d = None")
print(f"walrus: {(w := torch.zeros(N, device='cuda')).numel():,} elements")
show("after walrus")
(v := torch.ones(N, device='cuda'))
show("walrus statement")
del a, b
show("del a, b")
del v, w
show("del v, w")
