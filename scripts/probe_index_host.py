#!/usr/bin/env python3
"""What IndexBackward0 keeps when a CUDA tensor is read through an index
on the host (python3 on the GPU machine; output in
testdata/pyrules/index_host_probe.txt): the saved indices' devices and
dtypes, whether they are the very index objects passed, and the
allocator's events of the read and of its backward."""
import torch


def events(f):
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
    before = len(torch.cuda.memory._snapshot()["device_traces"][0])
    r = f()
    trace = torch.cuda.memory._snapshot()["device_traces"][0][before:]
    torch.cuda.memory._record_memory_history(enabled=None)
    return r, [(e["action"], e["size"]) for e in trace if e["action"] in ("alloc", "free_completed")]


x = torch.zeros(1024, 1024, device="cuda", requires_grad=True)
for name, idx in [("long", torch.tensor([0, 5, 9, 5])), ("mask", torch.tensor([True, False] * 512))]:
    y, ev = events(lambda: x[idx])
    saved = y.grad_fn._saved_indices
    print(name, "forward", ev)
    print(name, "saved", [(s.device.type, s.dtype, s is idx) for s in saved if s is not None])
    _, ev = events(lambda: y.sum().backward())
    print(name, "backward", ev)
    del y
    x.grad = None
