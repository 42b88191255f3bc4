# ppwwyyxx.com "Common Python Reference Cycle Patterns"
# (https://ppwwyyxx.com/blog/tags/Python): a bound method of self stored
# on self (a callback kept in a buffer) is the cycle obj -> method -> obj.
import torch, sys


class Trainer:
    def __init__(self):
        self.buffer = torch.empty(512, 1024, device="cuda")
        self.callbacks = []
        self.callbacks.append(self.on_step)

    def on_step(self):
        self.buffer.zero_()


for i in range(100):
    t = Trainer()
    for cb in t.callbacks:
        cb()
    sys._debugmallocstats()
    print(i, torch.cuda.memory_allocated())
