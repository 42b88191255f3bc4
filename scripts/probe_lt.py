#!/usr/bin/env python3
"""Probe when nn.Linear's forward goes through cuBLASLt.

    python3 scripts/probe_lt.py OUT.jsonl

cuBLASLt's first call allocates its 1 MiB workspace through the caching
allocator. For each (rows, in_features, out_features, bias, dtype) this runs
one Linear made on the GPU, in a fresh process, and writes one JSON row with
the sizes allocated by its forward, in order (the output, then the cuBLAS
workspace, then cuBLASLt's if it was used).
"""
import json
import subprocess
import sys

CASES = [(r, i, o, bias, dt) for (r, i, o) in [(1, 1, 1), (1, 64, 32), (8, 64, 32), (8, 1, 32), (8, 64, 1), (1, 64, 1), (1, 1, 32), (8, 1, 1), (2, 2, 2)]
         for bias in (True, False) for dt in ("float32",)] + \
        [(8, 64, 32, True, dt) for dt in ("float16", "bfloat16")]

CHILD = """
import json, sys, torch
r, i, o, bias, dt = json.loads(sys.argv[1])
dtype = getattr(torch, dt)
m = torch.nn.Linear(i, o, bias=bias, device="cuda", dtype=dtype)
x = torch.randn(r, i, device="cuda", dtype=dtype)
torch.cuda.synchronize()
torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
y = m(x)
torch.cuda.synchronize()
trace = torch.cuda.memory._snapshot()["device_traces"][0]
print(json.dumps([e["size"] for e in trace if e["action"] == "alloc"]))
"""


def main(out):
    with open(out, "w") as w:
        for case in CASES:
            res = subprocess.run([sys.executable, "-c", CHILD, json.dumps(case)], capture_output=True, text=True)
            allocs = json.loads(res.stdout) if res.returncode == 0 else None
            r, i, o, bias, dt = case
            w.write(json.dumps({"rows": r, "in": i, "out": o, "bias": bias, "dtype": dt, "allocs": allocs, "stderr": res.stderr[-300:] if res.returncode else ""}) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
