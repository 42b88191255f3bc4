#!/usr/bin/env python3
"""Record what PyTorch's CUDA reduction kernel takes from the caching
allocator when it reduces along the innermost dimension of a contiguous
tensor longer than 1024 (a block's lanes then may split the input across
blocks, combining partial results through a buffer and semaphores).

    python3 scripts/probe_reduce_inner.py OUT.jsonl [--dry-run]
    python3 scripts/probe_reduce_inner.py --strided OUT.jsonl [--dry-run]

For each op (sum, mean, amax, max with indices, argmax, var, logsumexp),
dtype and [rows, n] shape, one JSON row: {"op", "dtype", "shape",
"allocs": every alloc's size in the op's order, "frees": every free's
size}; the outputs come first. --dry-run lists the cases. --strided
reduces rows that are not contiguous with each other instead: x[:, k] of
a [rows, 3, n] tensor (a greedy decoder's logits[:, -1]: each row's
elements adjacent, the rows 3n apart), at k = 1 (its rows start n
elements in, misaligned for vector loads where n is odd) and k = 2, in
float16 too; its rows carry "layout": "row_slice" and "k".
"""
import json
import sys

from probe_embedding import out_path

ROWS = [1, 2, 3, 8, 57, 135, 1000, 2708]
LENGTHS = [1025, 1536, 2048, 2708, 4096, 8192, 32000, 50257, 100000, 1 << 20]
OPS = ["sum", "mean", "amax", "max", "argmax", "var", "logsumexp"]
DTYPES = ["float32", "bfloat16"]


STRIDED = "--strided" in sys.argv
if STRIDED:
    sys.argv.remove("--strided")


def cases():
    out = []
    for dtype in DTYPES + (["float16"] if STRIDED else []):
        for op in OPS:
            for rows in ROWS:
                for n in LENGTHS:
                    if STRIDED and rows > 1 and 3 * rows * n <= 1 << 28:
                        for k in (1, 2):
                            out.append({"op": op, "dtype": dtype, "shape": [rows, n], "layout": "row_slice", "k": k})
                    elif not STRIDED and rows * n <= 1 << 27:
                        out.append({"op": op, "dtype": dtype, "shape": [rows, n]})
    return out


def make(torch, c):
    """The case's input: a contiguous [rows, n] tensor, or row k of each
    [3, n] block of a [rows, 3, n] one."""
    dtype = getattr(torch, c["dtype"])
    if c.get("layout") == "row_slice":
        rows, n = c["shape"]
        return torch.randn(rows, 3, n, device="cuda", dtype=dtype)[:, c["k"]]
    return torch.randn(c["shape"], device="cuda", dtype=dtype)


def main():
    out = out_path(__doc__, cases)
    import torch
    with open(out, "w") as w:
        w.write(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                            "sm_count": torch.cuda.get_device_properties(0).multi_processor_count}) + "\n")
        for c in cases():
            x = make(torch, c)
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
