# Tuples, sets, nested containers, a comprehension's list discarded or
# bound, and a deque with maxlen that drops its oldest item.
import collections
import torch

N = 1 << 19  # 2 MiB of float32


def used():
    return torch.cuda.memory_allocated() >> 20


pair = (torch.empty(N, device='cuda'), torch.empty(N, device='cuda'))
first = pair[0]
del pair
print("tuple gone, first kept: %d MiB" % used())
s = {first, torch.empty(N, device='cuda')}
s.discard(first)
del first
print("set of one after discard: %d MiB" % used())
s.pop()
print("set popped: %d MiB" % used())
nested = {"layers": [{"w": torch.empty(N, device='cuda')} for _ in range(3)]}
inner = nested["layers"][1]
del nested
print("nested gone, one inner dict kept: %d MiB" % used())
del inner
torch.cuda.reset_peak_memory_stats()
[torch.empty(N, device='cuda') for _ in range(4)]
print(f"discarded comprehension: {used()} MiB, peak {torch.cuda.max_memory_allocated() >> 20} MiB")
kept = [torch.empty(N, device='cuda') for _ in range(4)]
print(f"bound comprehension: {used()} MiB")
dq = collections.deque(maxlen=2)
for t in kept:
    dq.append(t)
del kept, t
print(f"deque(maxlen=2) after 4 appends: {used()} MiB, len {len(dq)}")
dq.clear()
print(f"deque cleared: {used()} MiB")
