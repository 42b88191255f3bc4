#!/usr/bin/env python3
"""Record the ground truth for `gpumemrepl replay --explain`: a training run
that runs out of memory under a per-process limit, and the same run under
the change explain proposes, which must not.

    python3 scripts/record_explain.py run NAME OUTDIR FRACTION [ALLOC_CONF]
        one run, in its own process with PYTORCH_CUDA_ALLOC_CONF set:
        OUTDIR/NAME.pickle.gz (the _dump_snapshot file, gzipped) and
        OUTDIR/NAME.json (the outcome)
    python3 scripts/record_explain.py all OUTDIR BINARY
        on the GPU machine: the failing run ("fail") at the first fraction
        of FRACTIONS under which the default settings run out of memory
        and explain (BINARY replay --explain --json, given the run's limit)
        proposes a PYTORCH_CUDA_ALLOC_CONF; its diagnosis (explain.json);
        the rerun under that setting ("fix"); a proposal of empty_cache()
        (placed at an op of the history) or of a larger GPU is not applied
        here, and the next fraction is tried

The workload is a small training loop: a 3-layer MLP of width WIDTH with
AdamW, over batches of varying size (BATCHES), as variable-length batches
make them; each step's activations are freed by backward, and the
optimizer's state is made at the first step. _record_memory_history runs
with Python stacks. The first out-of-memory error ends the run, as it ends
a training job: the snapshot is dumped there. The outcome JSON holds the
config, the fraction, the limit and total memory, the steps completed,
the first OOM (its ordinal among the run's allocations, its requested
size as PyTorch recorded it, PyTorch's message) or null, and the peaks.
"""
import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys

WIDTH = 8192
BATCHES = [4096, 1024, 6144, 2048, 8192, 3072, 7168, 5120]
FRACTIONS = [0.030, 0.029, 0.031, 0.028, 0.032, 0.027, 0.033, 0.026, 0.034, 0.035, 0.036]


def workload(torch):
    """The training loop; returns the steps completed."""
    nn = torch.nn
    model = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH), nn.ReLU(), nn.Linear(WIDTH, WIDTH)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    done = 0
    for b in BATCHES:
        x = torch.randn(b, WIDTH, device="cuda")
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        del x, loss
        done += 1
    return done


def first_oom(snapshot):
    """The first oom event of device 0's history: (its ordinal among the
    allocations, failed ones included, its size), or None."""
    allocs = 0
    for ev in snapshot["device_traces"][0]:
        if ev["action"] == "oom":
            return allocs, ev["size"]
        if ev["action"] == "alloc":
            allocs += 1
    return None


def run_one(name, outdir, fraction, conf):
    """One run in this process (PYTORCH_CUDA_ALLOC_CONF set already)."""
    import torch

    torch.cuda.set_per_process_memory_fraction(fraction)
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.memory._record_memory_history(max_entries=1000000, stacks="python")
    outcome = {"name": name, "alloc_conf": conf, "memory_fraction": fraction, "total_memory": total,
               "limit_bytes": int(fraction * total), "batches": BATCHES, "width": WIDTH, "first_oom": None}
    done = 0
    try:
        done = workload(torch)
    except torch.OutOfMemoryError as e:
        outcome["first_oom"] = {"message": str(e)}
        done = -1
    path = os.path.join(outdir, name + ".pickle")
    torch.cuda.memory._dump_snapshot(path)
    torch.cuda.memory._record_memory_history(enabled=None)
    outcome["steps_completed"] = done
    outcome["max_memory_allocated"] = torch.cuda.max_memory_allocated()
    outcome["max_memory_reserved"] = torch.cuda.max_memory_reserved()
    with open(path, "rb") as f:
        snap = pickle.load(f)
    oom = first_oom(snap)
    if outcome["first_oom"] is not None and oom is not None:
        outcome["first_oom"]["allocation"], outcome["first_oom"]["requested_bytes"] = oom
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(outcome, f, indent=1)
        f.write("\n")
    return outcome


def spawn(name, outdir, fraction, conf):
    """run_one in a fresh process, its allocator configured by conf."""
    env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
    subprocess.run([sys.executable, __file__, "run", name, outdir, repr(fraction), conf], env=env, check=True)
    with open(os.path.join(outdir, name + ".json")) as f:
        return json.load(f)


def explain(binary, outdir, outcome):
    """explain's diagnosis of a recorded run, at its limit."""
    path = os.path.join(outdir, outcome["name"] + ".pickle.gz")
    cmd = [binary, "replay", "--explain", "--json", "--quiet", "--limit-bytes", str(outcome["limit_bytes"]),
           "--total-bytes", str(outcome["total_memory"]), path]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), res.returncode, res.stderr))
    return json.loads(res.stdout)


def record_all(outdir, binary):
    os.makedirs(outdir, exist_ok=True)
    for fraction in FRACTIONS:
        fail = spawn("fail", outdir, fraction, "")
        if fail["first_oom"] is None:
            print("fraction %g: no OOM" % fraction, flush=True)
            continue
        d = explain(binary, outdir, fail)
        fix = d.get("fix")
        print("fraction %g: %s at allocation %s; fix %s" % (fraction, d["cause"], d["at"]["allocation"], fix and fix["change"]), flush=True)
        if not fix or fix["change"].get("empty_cache_before_op") is not None or fix["change"].get("gpu"):
            continue
        with open(os.path.join(outdir, "explain.json"), "w") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
        rerun = spawn("fix", outdir, fraction, fix["alloc_conf"])
        print("rerun under %r: first OOM %s, %d steps" % (fix["alloc_conf"], rerun["first_oom"], rerun["steps_completed"]), flush=True)
        return 0
    print("no fraction gave an OOM that a setting fixes", flush=True)
    return 1


def main(argv):
    if len(argv) >= 5 and argv[1] == "run":
        run_one(argv[2], argv[3], float(argv[4]), argv[5] if len(argv) > 5 else "")
        return 0
    if len(argv) == 4 and argv[1] == "all":
        return record_all(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
