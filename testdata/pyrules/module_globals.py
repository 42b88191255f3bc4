# Module globals: a function that declares a name global binds, rebinds and
# deletes the module's name; without it, assignment makes a local.
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


def load():
    global weights
    weights = torch.empty(N, device='cuda')


def shadow():
    weights = torch.empty(2 * N, device='cuda')
    return used()


def drop():
    global weights
    del weights


load()
print(f"global bound in a function: {used()} MiB")
torch.cuda.reset_peak_memory_stats()
load()
print(f"rebound in a function: {used()} MiB, peak {torch.cuda.max_memory_allocated() >> 20}")
print(f"local shadow: {shadow()} MiB inside, {used()} MiB after")
drop()
print(f"deleted in a function: {used()} MiB, 'weights' in globals(): {'weights' in globals()}")
globals()["cache"] = torch.empty(N, device='cuda')
print("set through globals(): %d MiB" % used())
if __name__ == "__main__":
    main_only = torch.empty(N, device='cuda')
print("__main__ block bound main_only: %d MiB" % used())
del cache, main_only
print("all gone: %d MiB" % used())
