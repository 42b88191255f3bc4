#!/usr/bin/env python3
"""Is a recording made on the card the GPU machine lends today the same as
the one checked in? Re-records rule scripts (testdata/pyrules/NAME.py, or
the .py files named) with scripts/record_script.py, with --events where
the checked-in NAME.jsonl has events, and compares them row by row: each
statement's source and error, cuda:0's allocated, reserved and peak bytes
(nvml_proc_used left out: it is the driver's, not PyTorch's) and its
allocator events. Made because the GPU machine asked for an H200 may lend
an H100: both Hopper GH100 with 132 SMs under the same PyTorch, so every
figure that does not depend on the card's total memory should be equal.

    python3 scripts/card_check.py OUT.json [--jobs N] [--deadline S] [SCRIPT.py ...]
    python3 scripts/card_check.py OUT.json --dry-run [SCRIPT.py ...]

--dry-run compares each checked-in recording with itself (no torch
needed), to test the script. OUT.json: {"card": nvidia-smi's name,
"scripts": {NAME: {"status": "same" | "differs" | "failed" | "not run",
"rows", "diffs": [first 10]}}, "counts"}. Standard library only.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import checkpool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("allocated", "reserved", "max_allocated", "max_reserved")


def read_rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def key(row, events):
    dev = row.get("devices") or []
    d0 = {k: dev[0].get(k) for k in FIELDS} if dev else None
    return {"line": row.get("line"), "source": row.get("source"), "error": row.get("error"),
            "cuda0": d0, "events": row.get("events") if events else None}


def compare(want_path, got_path):
    want, got = read_rows(want_path), read_rows(got_path)
    events = any("events" in r for r in want)
    diffs = []
    for i in range(max(len(want), len(got))):
        w = key(want[i], events) if i < len(want) else None
        g = key(got[i], events) if i < len(got) else None
        if w != g:
            diffs.append({"row": i, "want": w, "got": g})
    return {"status": "same" if not diffs else "differs", "rows": len(want), "diffs": diffs[:10]}


def name_of(script):
    return os.path.splitext(os.path.basename(script))[0]


def one(script, dry):
    """script re-recorded (dry: its recording as it is) against its
    recording."""
    name = name_of(script)
    want = os.path.splitext(script)[0] + ".jsonl"
    if not os.path.exists(want):
        return {"status": "not run", "why": "no recording beside it"}
    if dry:
        return compare(want, want)
    events = any("events" in r for r in read_rows(want))
    with tempfile.TemporaryDirectory() as tmp:
        got = os.path.join(tmp, name + ".jsonl")
        cmd = [sys.executable, os.path.join(ROOT, "scripts/record_script.py")] + (["--events"] if events else []) + [script, got]
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=150)
        if p.returncode != 0 or not os.path.exists(got):
            return {"status": "failed", "exit": p.returncode, "stderr": p.stderr[-600:]}
        return compare(want, got)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("scripts", nargs="*")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--deadline", type=float, default=200)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_intermixed_args()  # OUT.json --jobs N SCRIPT.py ..., as the usage above has it
    scripts = a.scripts or sorted(glob.glob(os.path.join(ROOT, "testdata/pyrules/*.py")))
    card = "dry run"
    if not a.dry_run:
        try:
            card = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
        except OSError as e:
            card = f"nvidia-smi: {e}"
    done = checkpool.run_all(scripts, lambda s: one(s, a.dry_run), a.jobs, checkpool.Deadline(a.deadline),
                             late=lambda s: {"status": "not run", "why": "deadline"},
                             caught=(subprocess.TimeoutExpired, OSError, ValueError),
                             failed=lambda s, e: {"status": "failed", "why": str(e)})
    results = {}
    for s, r in zip(scripts, done):
        results[name_of(s)] = r
    counts = checkpool.counts(results.values())
    with open(a.out, "w") as f:
        json.dump({"card": card, "scripts": dict(sorted(results.items())), "counts": counts}, f, indent=1)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
