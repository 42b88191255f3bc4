# Views share their base's storage: a slice keeps the whole storage alive
# after the base is deleted; clone, contiguous and reshape of a
# non-contiguous view copy; split pieces keep the whole storage.
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20
base = torch.empty(4 * N, device='cuda')
v = base[:N]
del base
print(f"slice of 16 MiB kept: {used()} MiB")
v = v.clone()
print(f"cloned: {used()} MiB")
m = v.view(1024, 1024)
t = m.t()
print("view and transpose: %d MiB, same storage %s" % (used(), t.data_ptr() == v.data_ptr()))
c = t.contiguous()
print("contiguous copy: %d MiB" % used())
r = t.reshape(-1)
flat = m.reshape(-1)
print("reshape copies a transposed view only: %d MiB" % used())
del m, t, c, r, flat
every_other = torch.empty(2 * N, device='cuda')[::2]
print("strided slice keeps 8 MiB: %d MiB" % used())
pieces = torch.empty(4 * N, device='cuda').split(N)
last = pieces[-1]
del pieces
print("one split piece keeps 16 MiB: %d MiB" % used())
e = torch.empty(N, device='cuda').expand(8, N)
d = v.detach()
print("expand and detach allocate nothing: %d MiB" % used())
del v, every_other, last, e, d
print("all gone: %d MiB" % used())
