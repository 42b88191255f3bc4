# Lists: a tensor lives while any list slot holds it. append, pop,
# clear, del l[i], slice assignment, copies, l = [].
import torch

N = 1 << 19  # 2 MiB of float32


def used():
    return torch.cuda.memory_allocated() / (1 << 20)


l = []
for i in range(4):
    l.append(torch.empty(N, device='cuda'))
print(f"4 appended: {used():.0f} MiB")
l.pop()
print(f"pop discarded: {used():.0f} MiB")
last = l.pop()
print(f"pop bound: {used():.0f} MiB, len {len(l)}")
del l[0]
print("del l[0]: %.0f MiB" % used())
l[0:1] = [torch.empty(N, device='cuda'), torch.empty(N, device='cuda')]
print("slice assigned: %.0f MiB, len %d" % (used(), len(l)))
copy = l[:]
l.clear()
print("cleared, copy kept: %5.1f MiB" % used())
l = copy
del copy
l = []
print("l = []: %5.1f MiB" % used())
l = [last] * 3
del last
print("three slots, one tensor: %.0f MiB" % used())
l.extend([torch.empty(N, device='cuda')])
l[0] = None
print("extended, l[0] = None: %.0f MiB" % used())
del l[:]
print(f"del l[:]: {used()!r}")
