# Dicts: an entry's value lives until overwritten, deleted, popped or
# cleared; overwriting makes the new value before the old one goes.
import torch

N = 1 << 20  # 4 MiB of float32


def used():
    return torch.cuda.memory_allocated() >> 20


d = {"w": torch.empty(N, device='cuda'), "b": torch.empty(N, device='cuda')}
print(f"two entries: {used()} MiB")
torch.cuda.reset_peak_memory_stats()
d["w"] = torch.empty(N, device='cuda')
print(f"overwritten: {used()} MiB, peak {torch.cuda.max_memory_allocated() >> 20} MiB")
del d["w"]
print(f"del d['w']: {used()} MiB")
d.pop("b")
print(f"pop discarded: {used()} MiB")
d.setdefault("s", torch.empty(N, device='cuda'))
d.setdefault("s", torch.empty(2 * N, device='cuda'))
print(f"setdefault twice: {used()} MiB")
d.update(t=torch.empty(N, device='cuda'), u=torch.empty(N, device='cuda'))
k, v = d.popitem()
print("popitem kept %s: %d MiB" % (k, used()))
del k, v
shared = dict.fromkeys(["p", "q", "r"], torch.empty(N, device='cuda'))
print("fromkeys, one value: %d MiB" % used())
d2 = {name: torch.empty(N, device='cuda') for name in "xy"}
print("comprehension bound: %d MiB" % used())
d2 = shared.copy()
d.clear()
print("d cleared, d2 = copy: %d MiB" % used())
del shared
d2 = {}
print("all gone: %d MiB" % used())
