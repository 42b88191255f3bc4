#!/usr/bin/env python3
"""Record the ground truth for what-if replays: one program, many configs.

    python3 scripts/record_whatif.py OUTDIR            # every run, on the GPU
    python3 scripts/record_whatif.py --plan PROGRAM FILE.json
                                                       # the program's requests as an
                                                       # ops trace (no torch needed)

A program is a seeded, deterministic sequence of requests, like a
training loop over variable-length batches: each step draws a sequence
length, allocates activations proportional to it (1 MiB to 144 MiB) and
a few small tensors, which stay alive for WINDOW steps, and a workspace
freed within the step. "train" is that loop; "train_ec" also calls
torch.cuda.empty_cache() at the end of every EC_EVERY-th step, as some
programs do.

Each (program, config, limit) runs in its own process with
PYTORCH_CUDA_ALLOC_CONF set, torch.cuda.set_per_process_memory_fraction
giving the limit, and _record_memory_history on (no stacks). The first
out-of-memory error ends the program, as it ends a training job: what it
would have asked for afterwards is not its history. Each run writes
OUTDIR/NAME.pickle.gz (the _dump_snapshot file, gzipped) and
OUTDIR/NAME.json: the real outcome (the first OOM's ordinal among the
program's allocations, its requested size and PyTorch's message, or
null), the limit, the fraction, the device's total memory and a few
memory_stats() counters.
"""
import gzip
import json
import os
import random
import subprocess
import sys

SEED = 7
STEPS = 400
WINDOW = 3
EC_EVERY = 25
MiB = 1 << 20

PROGRAMS = ["train", "train_ec"]
CONFIGS = {
    "default": "",
    "ms64": "max_split_size_mb:64",
    "gc06": "garbage_collection_threshold:0.6",
    "exp": "expandable_segments:True",
    "ms128_gc08": "max_split_size_mb:128,garbage_collection_threshold:0.8",
    "rp2_4": "roundup_power2_divisions:4",
}
LIMITS = {"960m": 960 * MiB, "1g": 1 << 30, "1152m": 1152 * MiB}


def plan(program):
    """The program's requests: ("alloc", id, size), ("free", id), ("empty_cache",)."""
    rng = random.Random(SEED)
    ops, window, nid = [], [], 0

    def alloc(size):
        nonlocal nid
        ops.append(("alloc", nid, size))
        nid += 1
        return nid - 1

    for step in range(STEPS):
        tokens = rng.randint(16, 512)
        saved = [alloc(tokens * per + rng.randint(0, 4095)) for per in (72 * 1024, 192 * 1024, 288 * 1024)]
        saved += [alloc(rng.randint(512, 900 * 1024)) for _ in range(2)]
        work = alloc(tokens * 128 * 1024)
        ops.append(("free", work))
        window.append(saved)
        if len(window) > WINDOW:
            for i in window.pop(0):
                ops.append(("free", i))
        if program == "train_ec" and step % EC_EVERY == EC_EVERY - 1:
            ops.append(("empty_cache",))
    return ops


def write_plan(program, path):
    ops = []
    for op in plan(program):
        if op[0] == "alloc":
            ops.append({"op": "alloc", "id": op[1], "size": op[2]})
        elif op[0] == "free":
            ops.append({"op": "free", "id": op[1]})
        else:
            ops.append({"op": "empty_cache"})
    with open(path, "w") as f:
        json.dump({"alloc_conf": "", "ops": ops}, f)


def run_one(program, conf_name, limit_name, out):
    import torch

    name = f"{program}_{conf_name}_{limit_name}"
    torch.cuda.init()
    total = torch.cuda.get_device_properties(0).total_memory
    limit = LIMITS[limit_name]
    fraction = limit / total
    torch.cuda.set_per_process_memory_fraction(fraction)
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1_000_000)
    live, ordinal, first_oom = {}, 0, None
    for i, op in enumerate(plan(program)):
        if op[0] == "alloc":
            try:
                live[op[1]] = torch.empty(op[2], dtype=torch.uint8, device="cuda")
            except torch.OutOfMemoryError as e:
                first_oom = {"allocation": ordinal, "op": i, "requested_bytes": op[2], "message": str(e)}
                break
            ordinal += 1
        elif op[0] == "free":
            del live[op[1]]
        else:
            torch.cuda.empty_cache()
    path = os.path.join(out, name + ".pickle")
    torch.cuda.memory._dump_snapshot(path)
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        g.write(f.read())
    os.remove(path)
    st = torch.cuda.memory_stats()
    outcome = {
        "program": program, "config": conf_name, "alloc_conf": CONFIGS[conf_name],
        "limit_bytes": int(fraction * total), "memory_fraction": fraction, "total_memory": total,
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "allocations": ordinal + (first_oom is not None), "first_oom": first_oom,
        "stats": {k: st.get(k) for k in ("num_alloc_retries", "num_ooms", "num_device_alloc", "num_device_free", "reserved_bytes.all.peak")},
    }
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(outcome, f, indent=1)
    print(name, "first OOM:", first_oom and (first_oom["allocation"], first_oom["requested_bytes"]), flush=True)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--plan":
        write_plan(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        run_one(*sys.argv[2:])
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    procs = []
    for program in PROGRAMS:
        for conf_name, conf in CONFIGS.items():
            for limit_name in LIMITS:
                env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
                procs.append(subprocess.Popen([sys.executable, __file__, "--one", program, conf_name, limit_name, out], env=env))
                if len(procs) >= 6:  # several at a time: each holds at most its limit
                    if procs.pop(0).wait() != 0:
                        sys.exit("a run failed")
    for p in procs:
        if p.wait() != 0:
            sys.exit("a run failed")


if __name__ == "__main__":
    main()
