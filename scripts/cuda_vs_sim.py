#!/usr/bin/env python3
"""Issue 33, item 7: does the real-GPU backend give the figures the
simulated one gives?

Runs every program of testdata/python_passing.txt through the binary
twice, `run --json --keep-going --device cuda` (the CUDA driver under
gpumemrepl's own allocator) and `--device sim --fake-host` (as
TestPythonAsPasted runs them), and compares, statement by statement,
the allocated, reserved and peak bytes of cuda:0 and each statement's
error. A program whose figures differ, or that fails on one device only,
is a divergence: the simulated device accepted what the driver refuses
(or the other way round).

    python3 scripts/cuda_vs_sim.py BINARY OUT.json [--jobs N] [--deadline S] [--also FILE.py ...]
    python3 scripts/cuda_vs_sim.py BINARY OUT.json --dry-run

Programs run N at a time (default 4) on the one GPU; those that differ
are run again alone, since a program near the device's total memory
sees less of it beside others. --deadline (seconds, default 200) stops
starting programs after it; those are listed as not run. --dry-run uses
the simulated device for both sides (no GPU needed), to test the script.
--also adds programs of its own (named by their path), run first.

OUT.json: {"binary", "programs": {NAME: {"status": "same" | "differs" |
"not run" | "no program", "cuda_exit", "sim_exit", "cuda_stderr" (its
first 600 characters where it failed), "diffs": [first 20 lines]}},
"counts": {status: n}}. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

import checkpool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("allocated_bytes", "reserved_bytes", "max_allocated_bytes", "max_reserved_bytes")


def programs():
    """The names of python_passing.txt and their files."""
    out = []
    with open(os.path.join(ROOT, "testdata", "python_passing.txt")) as f:
        for line in f:
            name = line.strip()
            if not name or name.startswith("#"):
                continue
            if name.startswith("seed"):
                path = os.path.join(ROOT, "scripts", name + ".py")
            else:
                path = os.path.join(ROOT, "testdata", name + ".py")
            out.append((name, path))
    return out


def run(binary, path, device, timeout):
    """The --json rows of one run by line, its exit status and stderr."""
    args = [binary, "run", "--json", "--keep-going", "--device", device]
    if device == "sim":
        args.append("--fake-host")
    try:
        p = subprocess.run(args + [path], capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.join(ROOT, "cmd", "gpumemrepl"))
    except subprocess.TimeoutExpired:
        return {}, "timeout", ""
    rows = {}
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict) and r.get("line", 0) > 0:
            rows[r["line"]] = r
    return rows, p.returncode, p.stderr


def compare(cuda, sim):
    """The statements whose figures or error differ, in words."""
    diffs = []
    for line in sorted(set(cuda) | set(sim)):
        c, s = cuda.get(line), sim.get(line)
        if c is None or s is None:
            diffs.append("line %d: only on %s" % (line, "sim" if c is None else "cuda"))
            continue
        for k in FIELDS:
            if c.get(k) != s.get(k):
                diffs.append("line %d: %s cuda %s sim %s" % (line, k, c.get(k), s.get(k)))
        if c.get("error") != s.get("error"):
            diffs.append("line %d: error cuda %r sim %r" % (line, c.get("error"), s.get("error")))
    return diffs


def check(binary, name, path, device, timeout):
    if not os.path.exists(path):
        return {"status": "no program"}
    cuda, cexit, cerr = run(binary, path, device, timeout)
    sim, sexit, _ = run(binary, path, "sim", timeout)
    diffs = compare(cuda, sim)
    if cexit != sexit:
        diffs.insert(0, "exit cuda %s sim %s" % (cexit, sexit))
    res = {"status": "differs" if diffs else "same", "cuda_exit": cexit, "sim_exit": sexit,
           "statements": len(cuda), "diffs": diffs[:20]}
    if cexit != 0:
        res["cuda_stderr"] = cerr[:600]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--deadline", type=float, default=200)
    ap.add_argument("--timeout", type=float, default=60, help="per run, seconds")
    ap.add_argument("--dry-run", action="store_true", help="sim on both sides: no GPU")
    ap.add_argument("--also", nargs="*", default=[], help="more programs, run first")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    device = "sim" if a.dry_run else "cuda"
    deadline = checkpool.Deadline(a.deadline)
    progs = [(p, os.path.abspath(p)) for p in a.also] + programs()
    done = checkpool.run_all(progs, lambda p: check(binary, p[0], p[1], device, a.timeout), a.jobs, deadline,
                             late=lambda p: {"status": "not run"})
    results = {}
    for (name, _), res in zip(progs, done):
        results[name] = res
    # again alone, where a program beside others may have seen less memory
    for name, path in progs:
        if results[name]["status"] == "differs" and not deadline.passed():
            res = check(binary, name, path, device, a.timeout)
            res["alone"] = True
            results[name] = res
    counts = checkpool.counts(results.values())
    with open(a.out, "w") as f:
        json.dump({"binary": binary, "device": device, "seconds": round(deadline.elapsed(), 1),
                   "counts": counts, "programs": results}, f, indent=1, sort_keys=True)
    print(json.dumps(counts, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
