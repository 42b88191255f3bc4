#!/usr/bin/env python3
"""Record what PyTorch's CUDA reduction kernel takes from the caching
allocator when it reduces along the innermost dimension of a contiguous
tensor longer than 1024 (a block's lanes then may split the input across
blocks, combining partial results through a buffer and semaphores).

    python3 scripts/probe_reduce_inner.py OUT.jsonl [--dry-run]

For each op (sum, mean, amax, max with indices, argmax, var, logsumexp),
dtype and [rows, n] shape, one JSON row: {"op", "dtype", "shape",
"allocs": every alloc's size in the op's order, "frees": every free's
size}; the outputs come first. --dry-run lists the cases.
"""
import json

from probe_embedding import out_path

ROWS = [1, 2, 3, 8, 57, 135, 1000, 2708]
LENGTHS = [1025, 1536, 2048, 2708, 4096, 8192, 32000, 50257, 100000, 1 << 20]
OPS = ["sum", "mean", "amax", "max", "argmax", "var", "logsumexp"]
DTYPES = ["float32", "bfloat16"]


def cases():
    out = []
    for dtype in DTYPES:
        for op in OPS:
            for rows in ROWS:
                for n in LENGTHS:
                    if rows * n <= 1 << 27:
                        out.append({"op": op, "dtype": dtype, "shape": [rows, n]})
    return out


def main():
    out = out_path(__doc__, cases)
    import torch
    with open(out, "w") as w:
        w.write(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                            "sm_count": torch.cuda.get_device_properties(0).multi_processor_count}) + "\n")
        for c in cases():
            x = torch.randn(c["shape"], device="cuda", dtype=getattr(torch, c["dtype"]))
            op = c["op"]
            torch.cuda.synchronize()
            torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 12, clear_history=True)
            if op == "max":
                r = x.max(dim=-1)
            elif op == "logsumexp":
                r = torch.logsumexp(x, dim=-1)
            else:
                r = getattr(x, op)(dim=-1)
            torch.cuda.synchronize()
            trace = torch.cuda.memory._snapshot()["device_traces"][0]
            torch.cuda.memory._record_memory_history(enabled=None)
            rec = dict(c, allocs=[e["size"] for e in trace if e["action"] == "alloc"],
                       frees=[e["size"] for e in trace if e["action"] == "free_requested"])
            w.write(json.dumps(rec) + "\n")
            del r, x


if __name__ == "__main__":
    main()
