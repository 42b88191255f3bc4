# When a temporary dies: an expression's intermediate results, a call's
# arguments, a discarded expression statement, chained method calls.
import torch

N = 1 << 20  # float32 elements in 4 MiB


def mib(n):
    return n // (1 << 20)


def report(what):
    now = mib(torch.cuda.memory_allocated())
    print(f"{what:<28} now {now:3d} MiB, peak {mib(torch.cuda.max_memory_allocated()):3d} MiB")


x = torch.ones(N, device='cuda')
torch.cuda.reset_peak_memory_stats()
y = (x * 2) + 1
report("y = (x * 2) + 1")
torch.cuda.reset_peak_memory_stats()
y = torch.empty(N, device='cuda')
report("y rebound to a new tensor")
torch.cuda.reset_peak_memory_stats()
z = torch.add(x * 3, x * 4)
report("z = add(x * 3, x * 4)")
del z
torch.cuda.reset_peak_memory_stats()
x * 5
report("discarded x * 5")
torch.cuda.reset_peak_memory_stats()
w = x.mul(2).add(1).mul(3).sub(1)
report("chained mul.add.mul.sub")
torch.cuda.reset_peak_memory_stats()
t = x + x + x + x
report("t = x + x + x + x")
print("sum of x: %.1f, bytes now %d" % ((x * 2).sum().item(), torch.cuda.memory_allocated()))
del w, t, y
report("del w, t, y")
