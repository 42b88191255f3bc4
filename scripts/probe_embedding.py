#!/usr/bin/env python3
"""Record what PyTorch's CUDA caching allocator sees in F.embedding's and
F.embedding_bag's forward and backward over a grid of index counts, table
sizes, widths and dtypes (embedding_dense_backward sums at most 3072
indices directly and sorts more first; embedding_bag's backward sorts
always).

    python3 scripts/probe_embedding.py OUT.jsonl [--dry-run]
    python3 scripts/probe_embedding.py --counts OUT.jsonl [--dry-run]

Each case runs from an empty cache and writes one JSON line: the op, the
number of indices, the table's rows and width, its dtype, the bag size
and mode for embedding_bag, and for each phase (fwd; bwd: backward of a
dense incoming gradient into the table's weight, the only input that
requires grad) the allocator's trace events [action, size, addr_id]
(addr_id numbers the phase's addresses in order of appearance) and the
peak allocated over the phase's start. --dry-run lists the cases and
runs nothing.

--counts records F.embedding's sorted backward over index counts
instead, for the scratch CUB's radix sort and unique_by_key take by
count (the first grid has eleven counts): every 256th count from 3,073
to 2^18 and larger ones to 3,000,000, into a 65 x 16 float32 table (the
fused kernel's path); some of those counts into a 50304 x 64 table (the
two-pass kernel's) and in bfloat16 and float16 (the fused path's float32
accumulator, not yet recorded).
"""
import json
import sys

ACTIONS = {"alloc", "free_requested", "segment_alloc", "segment_free", "oom"}
COUNTS = [1000, 3072, 3073, 4096, 4608, 5000, 8192, 16384, 65536, 262144, 1048576]
TABLES = [(65, 384), (7919, 512), (50304, 320), (100000, 64)]
BAGS = [(387, 3, "sum"), (3870, 3, "sum"), (4096, 16, "mean"), (65536, 8, "sum"), (262144, 1, "sum"), (5000, 5, "max")]


def cases():
    """The grid: embedding over every count and table in float32, a few in
    bfloat16; embedding_bag over bag shapes and modes for two tables."""
    out = []
    for rows, dim in TABLES:
        for n in COUNTS:
            out.append({"op": "embedding", "n": n, "rows": rows, "dim": dim, "dtype": "float32"})
    for n in [3073, 16384, 262144]:
        out.append({"op": "embedding", "n": n, "rows": 50304, "dim": 320, "dtype": "bfloat16"})
    for rows, dim in [(10131, 16), (100000, 64)]:
        for n, bag, mode in BAGS:
            out.append({"op": "embedding_bag", "n": n, "bag": bag, "mode": mode, "rows": rows, "dim": dim, "dtype": "float32"})
    return out


def count_cases():
    """--counts' grid: embedding's backward by index count."""
    counts = list(range(3073, (1 << 18) + 1, 256)) + [1 << 18, 300000, 1 << 19, 600000, 1 << 20, 1 << 21, 3000000]
    out = [{"op": "embedding", "n": n, "rows": 65, "dim": 16, "dtype": "float32"} for n in counts]
    for n in [3073, 4096, 65536, 100000, 1 << 20]:
        out.append({"op": "embedding", "n": n, "rows": 50304, "dim": 64, "dtype": "float32"})
        for dtype in ("bfloat16", "float16"):
            out.append({"op": "embedding", "n": n, "rows": 65, "dim": 16, "dtype": dtype})
    return out


def out_path(doc, grid):
    """A probe's one argument, OUT.jsonl; with --dry-run, its cases are
    printed instead and the process exits (shared by the probes that
    import this)."""
    args = sys.argv[1:]
    dry = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    if len(args) != 1:
        sys.exit(doc)
    if dry:
        for c in grid():
            print(json.dumps(c))
        sys.exit(0)
    return args[0]


def main():
    counts = "--counts" in sys.argv
    if counts:
        sys.argv.remove("--counts")
    grid = count_cases if counts else cases
    out = out_path(__doc__, grid)
    import torch
    import torch.nn.functional as F

    def read_trace():
        torch.cuda.synchronize()
        trace = torch.cuda.memory._snapshot()["device_traces"][0]
        ids, out = {}, []
        for e in trace:
            if e["action"] in ACTIONS:
                key = e.get("addr", ("free", e.get("device_free")))
                out.append([e["action"], e["size"], ids.setdefault(key, len(ids))])
        return out

    def phase(fn):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 16, clear_history=True)
        result = fn()
        events = read_trace()
        torch.cuda.memory._record_memory_history(enabled=None)
        return {"events": events, "peak_over_start": torch.cuda.max_memory_allocated() - before}, result

    torch.manual_seed(0)
    with open(out, "w") as w:
        w.write(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}) + "\n")
        for c in grid():
            torch.cuda.empty_cache()
            dtype = getattr(torch, c["dtype"])
            weight = torch.randn(c["rows"], c["dim"], device="cuda", dtype=dtype, requires_grad=True)
            idx = torch.randint(0, c["rows"], (c["n"],), device="cuda")
            rec = dict(c)
            try:
                if c["op"] == "embedding":
                    rec["fwd"], y = phase(lambda: F.embedding(idx, weight))
                else:
                    offsets = torch.arange(0, c["n"], c["bag"], device="cuda")
                    rec["fwd"], y = phase(lambda: F.embedding_bag(idx, weight, offsets, mode=c["mode"]))
                g = torch.randn_like(y)
                rec["bwd"], _ = phase(lambda: y.backward(g))
                del g, y
            except torch.OutOfMemoryError as err:
                rec["error"] = str(err).splitlines()[0]
            w.write(json.dumps(rec) + "\n")
            w.flush()
            del weight, idx


if __name__ == "__main__":
    main()
