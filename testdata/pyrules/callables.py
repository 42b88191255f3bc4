# Callables made from objects: functools.partial, a bound method, a lazy
# map, and functools.cached_property keep what they were made with.
import functools
import torch

N = 1 << 20  # 4 MiB of float32
used = lambda: torch.cuda.memory_allocated() >> 20


class Model:
    def __init__(self):
        self.w = torch.empty(N, device='cuda')

    def run(self):
        return self.w.numel()

    @functools.cached_property
    def doubled(self):
        return self.w * 2


p = functools.partial(torch.add, torch.empty(N, device='cuda'))
print("partial holds its argument: %d MiB" % used())
del p
run = Model().run
print("bound method keeps its instance: %d MiB" % used())
del run
m = Model()
m.doubled, m.doubled
print("cached_property computed once and kept: %d MiB" % used())
del m.doubled
print("cached value deleted: %d MiB" % used())
lazy = map(lambda k: k * 2, [torch.empty(N, device='cuda')])
print("map keeps its list: %d MiB" % used())
first = next(lazy)
del lazy
print("map consumed and gone, result kept: %d MiB" % used())
del m, first
print("all gone: %d MiB" % used())
