# Attributes: an instance attribute holds a tensor until overwritten or
# deleted, or until its object dies; a class attribute outlives instances.
import torch

N = 1 << 20  # 4 MiB of float32


def used():
    return torch.cuda.memory_allocated() >> 20


class Holder:
    pass


h = Holder()
h.t = torch.empty(N, device='cuda')
print(f"h.t set: {used()} MiB")
torch.cuda.reset_peak_memory_stats()
h.t = torch.empty(N, device='cuda')
print(f"h.t overwritten: {used()} MiB, peak {torch.cuda.max_memory_allocated() >> 20}")
del h.t
print(f"del h.t: {used()} MiB")
setattr(h, "u", torch.empty(N, device='cuda'))
h2 = h
del h
print(f"h deleted, alias h2 keeps h2.u: {used()} MiB")
del h2
print(f"object gone: {used()} MiB")
Holder.shared = torch.empty(2 * N, device='cuda')
a, b = Holder(), Holder()
a.shared = torch.empty(N, device='cuda')
print("class attr and a shadow: %d MiB, b sees %d elements" % (used(), b.shared.numel()))
del a, b
print("instances gone, class attr stays: %d MiB" % used())
delattr(Holder, "shared")
print("class attr deleted: %d MiB" % used())

