# keras-team/keras#23206 (issue #23110): a recursive helper closure refers
# to itself through its cell, and to the tensors it walks; each call
# leaves that cycle, with the tensors, for the collector.
import torch, sys


def traverse(structure):
    def helper(x):
        if isinstance(x, (list, tuple)):
            return [helper(v) for v in x]
        return x is not structure

    return helper(structure)


for i in range(150):
    batch = [torch.randn(128, 1024, device="cuda") for _ in range(4)]
    traverse(batch)
    del batch
    sys._debugmallocstats()
    print(i, torch.cuda.memory_allocated())
