#!/usr/bin/env python3
"""Record PyTorch's caching host allocator (pinned memory) step by step.

    python3 scripts/record_host.py OUT.jsonl

Runs scenarios of pinned allocations (tensor.pin_memory(), torch.empty(...,
pin_memory=True), frees, torch._C._host_emptyCache(), a pinned tensor
copied to the GPU with non_blocking=True and synchronized) in one process
and writes one JSON object per step: the scenario, the step's code, and
torch.cuda.host_memory_stats() after it without its timing keys (whose
values are durations), plus the data_ptr of the step's result where it
made one (to tell a reused block from a new one). Each row has the op
it ran as data too ([kind, name, bytes]), for the Go tests to replay.
"""
import json
import sys

import torch

out = open(sys.argv[1], "w")
live = {}


def stats():
    s = torch.cuda.host_memory_stats()
    return {k: v for k, v in s.items() if "time" not in k}


def step(scenario, op):
    """Runs one op ([kind, name, bytes...]) and records the stats after it."""
    kind = op[0]
    code = {
        "pin": lambda name, n: f"live[{name!r}] = torch.empty({n // 4}, dtype=torch.float32).pin_memory(); ptr = live[{name!r}].data_ptr()",
        "empty": lambda name, n: f"live[{name!r}] = torch.empty({n}, dtype=torch.uint8, pin_memory=True); ptr = live[{name!r}].data_ptr()",
        "free": lambda name: f"del live[{name!r}]",
        "repin": lambda name, src: f"live[{name!r}] = live[{src!r}].pin_memory(); ptr = live[{name!r}].data_ptr()",
        "to_cuda_async": lambda name, src: f"live[{name!r}] = live[{src!r}].to('cuda', non_blocking=True)",
        "synchronize": lambda: "torch.cuda.synchronize()",
        "empty_cache": lambda: "torch._C._host_emptyCache()",
        "reset_peak": lambda: "torch.cuda.reset_peak_host_memory_stats()",
    }[kind](*op[1:])
    ns = {"torch": torch, "live": live}
    row = {"scenario": scenario, "op": op, "code": code}
    try:
        exec(code, ns)
        row["ptr"] = ns.get("ptr")
    except Exception as e:  # record and go on
        row["error"] = f"{type(e).__name__}: {e}"
    row["stats"] = stats()
    out.write(json.dumps(row) + "\n")
    out.flush()


scenarios = {
    # pin() takes a float32 tensor of the given bytes; empty() a uint8 one
    "round": [["pin", "a", 1000], ["pin", "b", 1024], ["pin", "c", 1028], ["pin", "d", 3 << 20], ["empty", "e", 1],
              ["empty", "f", 0], ["free", "a"], ["free", "b"], ["free", "c"], ["free", "d"], ["free", "e"], ["free", "f"]],
    "reuse": [["empty", "r1", 5000], ["empty", "r2", 6000], ["free", "r1"], ["free", "r2"], ["empty", "r3", 8192],
              ["empty", "r4", 4097], ["empty", "r5", 8193], ["free", "r3"], ["free", "r4"], ["free", "r5"],
              ["empty", "r6", 16384], ["empty", "r7", 1 << 20]],
    "lifo": [["empty", "l1", 100000], ["empty", "l2", 100000], ["empty", "l3", 100000], ["free", "l1"], ["free", "l3"],
             ["empty", "l4", 70000], ["empty", "l5", 70000], ["empty", "l6", 70000]],
    "empty_cache": [["free", "r6"], ["free", "r7"], ["free", "l2"], ["free", "l4"], ["empty_cache"], ["empty", "h", 1 << 20],
                    ["empty_cache"], ["free", "h"], ["free", "l5"], ["free", "l6"], ["empty_cache"]],
    "already_pinned": [["empty", "p1", 4096], ["repin", "p2", "p1"], ["free", "p1"], ["free", "p2"]],
    "rebind": [["empty", "x", 1 << 16], ["empty", "x", 1 << 16], ["empty", "x", 1 << 16], ["free", "x"]],
    "to_cuda_async": [["empty", "s1", 1 << 20], ["to_cuda_async", "g1", "s1"], ["free", "s1"], ["synchronize"],
                      ["empty", "s2", 1 << 20], ["free", "s2"], ["free", "g1"]],
    "to_cuda_async_nosync": [["empty", "n1", 1 << 24], ["to_cuda_async", "g2", "n1"], ["free", "n1"], ["empty", "n2", 1 << 24],
                             ["free", "n2"], ["free", "g2"], ["synchronize"], ["empty", "n3", 1 << 24], ["free", "n3"]],
    "peaks": [["reset_peak"], ["empty", "k1", 1 << 22], ["empty", "k2", 1 << 22], ["free", "k1"], ["free", "k2"],
              ["empty", "k3", 1 << 23], ["free", "k3"], ["empty_cache"]],
}
for name, steps in scenarios.items():
    for op in steps:
        step(name, op)
out.close()
