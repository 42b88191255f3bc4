#!/usr/bin/env python3
"""Record allocator ground truth from real PyTorch, for gpumemrepl's tests.

Run on a machine with a CUDA GPU and PyTorch:

    python3 scripts/record_traces.py OUTDIR [NAME ...]

Each trace runs in its own process (the allocator config is read once per
process) and writes OUTDIR/NAME.json in the same format as
testdata/truth/traces: alloc_conf, limit_bytes, memory_fraction,
total_memory, ops, expect (every memory_stats() key after every op, plus
"error" where the op raised) and layouts (memory_snapshot() at four points,
segments sorted by pool, size and block sizes). It also records
"segment_events": every segment_alloc/segment_free/segment_map/
segment_unmap with its real address, which is how the simulated device's
address pattern was measured.

Traces are random alloc/free/empty_cache sequences with sizes drawn
log-uniformly plus every rounding boundary the allocator has, so each rule
(512-byte rounding, 1 MiB small/large cut, 10 MiB segment cut, the 1 MiB
split remainder, oversize blocks, power-of-two divisions) is crossed often.
"""
import json
import os
import random
import subprocess
import sys

MiB = 1 << 20
GiB = 1 << 30

# name: (alloc_conf, limit_bytes or None, ops, live-target)
CONFIGS = {
    "default": ("", None, 600, 60),
    "maxsplit40": ("max_split_size_mb:40", None, 600, 60),
    "maxsplit200": ("max_split_size_mb:200,max_non_split_rounding_mb:64", None, 600, 60),
    "rp2_4": ("roundup_power2_divisions:4", None, 600, 60),
    "rp2_list": ("roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", None, 600, 60),
    "rp2_gt_first": ("roundup_power2_divisions:[>:4]", None, 400, 60),
    "gc07_3g": ("garbage_collection_threshold:0.7", 3 * GiB, 600, 60),
    "gc09_1g": ("garbage_collection_threshold:0.9,max_split_size_mb:64", 1 * GiB, 600, 40),
    "limit2g": ("", 2 * GiB, 600, 60),
    "limit512m": ("", 512 * MiB, 600, 40),
    "maxsplit100_gc06_3g": ("max_split_size_mb:100,garbage_collection_threshold:0.6", 3 * GiB, 600, 60),
    "largeseg40": ("large_segment_size_mb:40", None, 400, 60),
    "expandable": ("expandable_segments:True", None, 600, 60),
    "expandable_2g": ("expandable_segments:True", 2 * GiB, 600, 60),
    "expandable_ms64": ("expandable_segments:True,max_split_size_mb:64", None, 400, 60),
    "expandable_gc_1g": ("expandable_segments:True,garbage_collection_threshold:0.8", 1 * GiB, 400, 40),
    "small_only": ("", None, 1500, 300),
    "boundaries": ("", None, 800, 50),
    "fragment_long": ("", 4 * GiB, 3000, 80),
}

BOUNDARIES = [
    1, 511, 512, 513, 1023, 1024, 1025, MiB - 512, MiB - 1, MiB, MiB + 1,
    MiB + 512, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 10 * MiB - 512, 10 * MiB - 1,
    10 * MiB, 10 * MiB + 1, 19 * MiB, 20 * MiB - 1048064, 20 * MiB - MiB - 1,
    20 * MiB - 1, 20 * MiB, 20 * MiB + 1, 25 * MiB + 1, 40 * MiB - 1, 40 * MiB,
    40 * MiB + 1, 64 * MiB, 64 * MiB + 1, 100 * MiB, 128 * MiB + 1,
    256 * MiB, 512 * MiB + 1, GiB - 1, GiB,
]


def draw_size(rng, name):
    if name == "small_only":
        return rng.randint(1, MiB)
    if name == "boundaries" and rng.random() < 0.7:
        return rng.choice(BOUNDARIES)
    r = rng.random()
    if r < 0.1:
        return rng.choice(BOUNDARIES)
    if r < 0.5:
        return int(2 ** rng.uniform(9, 20))  # small pool
    if r < 0.85:
        return int(2 ** rng.uniform(20, 25))  # 1-32 MiB
    return int(2 ** rng.uniform(25, 30.2))  # up to ~1.2 GiB


def make_ops(name, seed, n, live_target):
    rng = random.Random(f"{name}:{seed}")
    ops, live, next_id = [], [], 0
    for _ in range(n):
        r = rng.random()
        if r < 0.01:
            ops.append({"op": "empty_cache"})
            continue
        p_alloc = 0.75 if len(live) < live_target else 0.35
        if not live or r < p_alloc:
            ops.append({"op": "alloc", "id": next_id, "size": draw_size(rng, name)})
            live.append(next_id)
            next_id += 1
        else:
            k = live.pop(rng.randrange(len(live)))
            ops.append({"op": "free", "id": k})
    return ops


def layout(torch):
    segs = []
    for s in torch.cuda.memory_snapshot():
        base = s["address"]
        blocks = [[b["address"] - base, b["size"], b["state"], b["requested_size"]] for b in s["blocks"]]
        segs.append({
            "pool": s["segment_type"],
            "total_size": s["total_size"],
            "allocated_size": s["allocated_size"],
            "requested_size": s["requested_size"],
            "blocks": blocks,
        })
    segs.sort(key=lambda s: (s["pool"], s["total_size"], [b[1] for b in s["blocks"]]))
    return segs


def child(name, seed, out):
    import torch

    conf, limit, n, live_target = CONFIGS[name]
    total = torch.cuda.get_device_properties(0).total_memory
    fraction = None
    torch.cuda.init()
    if limit is not None:
        fraction = limit / total
        torch.cuda.set_per_process_memory_fraction(fraction)
    torch.cuda.memory._record_memory_history(max_entries=10_000_000, context=None, stacks="python")
    ops = make_ops(name, seed, n, live_target)
    ptrs, expect, layouts = {}, [], {}
    marks = {n // 4, n // 2, (3 * n) // 4, n - 1}
    for i, op in enumerate(ops):
        err = None
        if op["op"] == "alloc":
            try:
                ptrs[op["id"]] = torch.cuda.caching_allocator_alloc(op["size"])
            except torch.OutOfMemoryError as e:
                op["oom"] = True
                err = str(e)
        elif op["op"] == "free":
            p = ptrs.pop(op["id"], None)
            if p is None:  # freeing an id whose alloc hit OOM: skip it
                op["op"] = "noop"
            else:
                torch.cuda.caching_allocator_delete(p)
        else:
            torch.cuda.empty_cache()
        row = dict(torch.cuda.memory_stats())
        row["i"] = i
        if err is not None:
            row["error"] = err
        expect.append(row)
        if i in marks:
            layouts[str(i)] = layout(torch)
    ops_out = [o for o in ops]
    snap = torch.cuda.memory._snapshot()
    events = [
        {"action": e["action"], "addr": e.get("addr", 0), "size": e["size"]}
        for e in snap["device_traces"][0]
        if e["action"].startswith("segment_") or e["action"] == "oom"
    ]
    doc = {
        "name": name, "seed": seed, "alloc_conf": conf,
        "memory_fraction": fraction, "limit_bytes": limit, "total_memory": total,
        "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
        "ops": ops_out, "expect": expect, "layouts": layouts,
        "segment_events": events,
    }
    with open(os.path.join(out, f"{name}_s{seed}.json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    out = sys.argv[1]
    names = sys.argv[2:] or list(CONFIGS)
    os.makedirs(out, exist_ok=True)
    procs = []
    for name in names:
        for seed in (0, 1):
            env = dict(os.environ)
            env["PYTORCH_CUDA_ALLOC_CONF"] = CONFIGS[name][0]
            env.pop("PYTORCH_ALLOC_CONF", None)
            procs.append((name, seed, subprocess.Popen(
                [sys.executable, __file__, "--child", name, str(seed), out], env=env)))
            # a few at a time: they share one GPU, and limits are per process
            if len(procs) >= 6:
                n, s, p = procs.pop(0)
                print(n, s, "rc", p.wait(), flush=True)
    for n, s, p in procs:
        print(n, s, "rc", p.wait(), flush=True)


if __name__ == "__main__":
    main()
