#!/usr/bin/env python3
"""Probe the temporaries PyTorch's CUDA reduction kernel allocates.

    python3 scripts/probe_reduce.py OUT.jsonl

A full reduction (x.sum(), x.mean()) of a large tensor is split across
thread blocks, which combine their partial results through a buffer and
semaphores in global memory, allocated through the caching allocator for
the kernel's duration. For each dtype, op and element count this writes
one JSON row {"dtype", "op", "n", "temps"}: the sizes allocated during the
op besides its output, in order, from the allocator's memory history.
"""
import json
import sys

import torch

SIZES = sorted({2 ** k for k in range(8, 31)} | {3 * 2 ** k for k in range(8, 29)} |
               {131071, 131072, 131073, 131584, 132096, 196607, 262143, 262145,
                4325375, 4325376, 4325377, 4326400, 69206015, 69206016, 69206017, 69271552,
                1000, 100000, 1000000, 10000000, 123456789, 99999, 777777, 5000000, 50000000})


def temps(x, op):
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
    getattr(x, op)()
    torch.cuda.synchronize()
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    torch.cuda.memory._record_memory_history(enabled=None)
    allocs = [e["size"] for e in trace if e["action"] == "alloc"]
    return allocs[1:]  # the first is the output


def main(out):
    with open(out, "w") as w:
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for op in ("sum", "mean"):
                for n in SIZES:
                    if n * dtype.itemsize > 4 << 30:
                        continue
                    x = torch.empty(n, dtype=dtype, device="cuda")
                    w.write(json.dumps({"dtype": str(dtype).removeprefix("torch."), "op": op, "n": n, "temps": temps(x, op)}) + "\n")
                    del x
        props = torch.cuda.get_device_properties(0)
        w.write(json.dumps({"device": props.name, "multi_processor_count": props.multi_processor_count,
                            "max_threads_per_multi_processor": props.max_threads_per_multi_processor}) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
