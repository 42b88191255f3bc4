# The collector's thresholds decide when cycles go: gc.set_threshold,
# gc.disable and gc.freeze change when the same leaking loop frees its
# tensors (the counts after each statement are CPython's own).
import gc
import torch


class Holder:
    def __init__(self, t):
        self.t = t
        self.me = self


print(gc.get_threshold(), gc.isenabled())
for i in range(100):
    Holder(torch.empty(64, 1024, device="cuda"))
print(torch.cuda.memory_allocated(), gc.get_count())
gc.set_threshold(100)
for i in range(100):
    Holder(torch.empty(64, 1024, device="cuda"))
print(torch.cuda.memory_allocated(), gc.get_count())
gc.disable()
for i in range(100):
    Holder(torch.empty(64, 1024, device="cuda"))
print(torch.cuda.memory_allocated(), gc.get_count(), gc.isenabled())
gc.enable()
gc.collect()
print(torch.cuda.memory_allocated(), gc.get_count())
gc.freeze()
print(gc.get_count(), gc.get_freeze_count() > 0)
gc.unfreeze()
gc.set_threshold(700, 10, 10)
cbs = []
gc.callbacks.append(lambda phase, info: cbs.append((phase, info["generation"])))
for i in range(100):
    Holder(torch.empty(64, 1024, device="cuda"))
gc.callbacks.clear()
print(torch.cuda.memory_allocated(), cbs[:4], len(cbs) > 0)
