# Loops: the loop variable keeps the last item, an iterated list literal dies
# with the loop, rebinding makes the new first, break/continue keep bindings.
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20
peak = lambda: torch.cuda.max_memory_allocated() >> 20

for t in [torch.empty(N, device='cuda'), torch.empty(N, device='cuda')]:
    print(f"  in the loop: {used()} MiB")
print(f"after the loop t keeps the last: {used()} MiB")
del t
i = 0
torch.cuda.reset_peak_memory_stats()
while i < 3:
    buf = torch.empty(N, device='cuda')
    i += 1
print("while rebinding buf: %d MiB, peak %d MiB" % (used(), peak()))
items = [torch.empty(N, device='cuda') for _ in range(3)]
for t in items:
    if t is items[1]:
        break
del items
print("break at the second: %d MiB" % used())
for k in range(4):
    if k % 2:
        continue
    last = torch.empty(N, device='cuda')
print("continue skipped two: %d MiB, k = %d" % (used(), k))
acc = torch.zeros(N, device='cuda')
torch.cuda.reset_peak_memory_stats()
for _ in range(3):
    acc = acc + 1
print("acc = acc + 1: peak %d MiB;" % peak(), end=" ")
torch.cuda.reset_peak_memory_stats()
for _ in range(3):
    acc += 1
print("acc += 1: peak %d MiB" % peak())
del buf, t, last, acc
print(f"all gone: {used()} MiB")
