#!/usr/bin/env python3
"""Probe the scratch CUB takes from the caching allocator, by element
count: torch.masked_select (nonzero of its mask, then index) and a 1-d
torch.cumsum (a device scan).

    python3 scripts/probe_cub.py OUT.jsonl
    python3 scripts/probe_cub.py --scan-dtypes OUT.jsonl

One JSON row an op, dtype, element count n and (masked_select) count k
of true mask elements: {"op", "dtype", "n", "k", "events"}, events being
the allocator's [action, size] during the op (alloc, free_completed,
segment_alloc...; free_requested left out), from its memory history.
Counts 1 to 4096 every one, with all and none of the mask true, and
half of it at every count up to 64 and every 7th; then a sparse set of
larger counts to see the pattern past the table. Kept, gzipped, as
testdata/cub_scratch.jsonl.gz (each row's events run on into the next
row's setup: the mask's fill and count; the op's own come first).

--scan-dtypes probes the scan of a tensor's only line by dtype instead:
torch.cumsum and torch.cumprod of float16, bfloat16, float64 and int64
(cumprod of float32 too), every count to 4096 and the larger ones; kept
as testdata/cub_scan_dtypes.jsonl.gz.
"""
import json
import sys

import torch

MARK = 1 << 29  # a marker allocation's size, plus the row's number
EXTRA = [4097, 5000, 6000, 8192, 10000, 12288, 16384, 20000, 32768, 65536, 100000, 131072, 1 << 20, 10 ** 7]


def cases():
    for n in list(range(1, 4097)) + EXTRA:
        ks = {n, 0}
        if n <= 64 or n % 7 == 0:
            ks.add(n // 2)
        for k in sorted(ks):
            yield "masked_select", torch.float32, n, k
    for n in (1, 2, 3, 5, 6, 7, 100, 1000, 1296, 4096):
        for dt in (torch.float16, torch.bfloat16, torch.float64):
            yield "masked_select", dt, n, n
    for n in list(range(1, 4097, 1)) + EXTRA:
        yield "cumsum", torch.float32, n, None
    for n in (1, 2, 6, 100, 1000, 4096, 10000):
        yield "cumsum", torch.int64, n, None


def scan_cases():
    for dt in (torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.float32):
        for op in ("cumsum", "cumprod"):
            if (op, dt) != ("cumsum", torch.float32):
                for n in list(range(1, 4097)) + EXTRA:
                    yield op, dt, n, None


def main(out, todo):
    big = max(EXTRA)
    xs = {dt: torch.ones(big, dtype=dt, device="cuda") for dt in (torch.float32, torch.float16, torch.bfloat16, torch.float64)}
    xi = torch.ones(big, dtype=torch.int64, device="cuda")
    masks = {}
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 23)
    for i, (op, dt, n, k) in enumerate(todo):
        if op == "masked_select":
            m = torch.zeros(n, dtype=torch.bool, device="cuda")
            if k == n:
                m.fill_(True)
            elif k:
                m[: 2 * k: 2] = True
            masks[i] = int(m.sum().item())
            torch.cuda.synchronize()
            mark = torch.empty(MARK + i, dtype=torch.uint8, device="cuda")
            del mark
            r = torch.masked_select(xs[dt][:n], m)
            del r, m
        else:
            x = (xs[dt] if dt in xs else xi)[:n]
            torch.cuda.synchronize()
            mark = torch.empty(MARK + i, dtype=torch.uint8, device="cuda")
            del mark
            r = getattr(torch, op)(x, 0)
            del r
        torch.cuda.synchronize()
    mark = torch.empty(MARK + len(todo), dtype=torch.uint8, device="cuda")
    del mark
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    torch.cuda.memory._record_memory_history(enabled=None)
    rows, cur = {}, None
    for e in trace:
        if e["action"] == "alloc" and MARK <= e["size"] <= MARK + len(todo):
            cur = e["size"] - MARK
            rows[cur] = []
            continue
        if cur is None or e["action"] == "free_requested" or MARK <= e["size"] <= MARK + len(todo) + (2 << 20):
            continue
        rows[cur].append([e["action"], e["size"]])
    with open(out, "w") as w:
        for i, (op, dt, n, k) in enumerate(todo):
            w.write(json.dumps({"op": op, "dtype": str(dt).removeprefix("torch."), "n": n, "k": masks.get(i), "events": rows.get(i, [])}) + "\n")
        props = torch.cuda.get_device_properties(0)
        w.write(json.dumps({"device": props.name, "torch": torch.__version__, "trace_events": len(trace)}) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    scan = args[:1] == ["--scan-dtypes"]
    if len(args) != 1 + scan:
        sys.exit(__doc__)
    main(args[-1], list(scan_cases() if scan else cases()))
