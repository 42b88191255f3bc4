#!/usr/bin/env python3
"""Find, in PyTorch, the largest batch size with which a training
program runs to its end on this GPU, around a predicted one.

    python3 scripts/probe_sweep.py SCRIPT PREDICTED OUT.jsonl [ARG...]

Runs SCRIPT -- --batch-size N ARG... in a fresh python3 process for N =
PREDICTED, then upwards while it fits or downwards while it does not,
until one N fits and N+1 does not (at most 5 runs). Each run is a line
of OUT.jsonl: batch, fits, peak allocated and reserved
(max_memory_allocated/reserved at the end, or when the out-of-memory
error was raised), the error's last line, wall time.
"""
import json
import subprocess
import sys
import time

RUNNER = r"""
import json, runpy, sys
import torch
script = sys.argv[1]
sys.argv = [script] + sys.argv[2:]
err = None
try:
    runpy.run_path(script, run_name="__main__")
except torch.OutOfMemoryError as e:
    err = str(e).splitlines()[0]
print("@@" + json.dumps({"fits": err is None, "error": err,
    "max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved()}))
"""


def run(script, batch, rest, dry):
    cmd = [sys.executable, "-c", RUNNER, script, "--batch-size", str(batch)] + rest
    if dry:
        print("would run", cmd[:1] + cmd[3:])
        return {"batch": batch, "fits": batch <= 3}
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    row = {"batch": batch, "wall_s": time.time() - t0, "rc": r.returncode}
    for line in r.stdout.splitlines():
        if line.startswith("@@"):
            row.update(json.loads(line[2:]))
    if "fits" not in row:
        row["stderr"] = r.stderr[-2000:]
        row["fits"] = None
    return row


def main():
    args = sys.argv[1:]
    dry = args[:1] == ["--dry-run"]
    if dry:
        args = args[1:]
    script, predicted, out, rest = args[0], int(args[1]), args[2], args[3:]
    rows, seen = [], {}
    b = predicted
    for _ in range(5):
        row = run(script, b, rest, dry)
        rows.append(row)
        seen[b] = row["fits"]
        print(json.dumps(row), flush=True)
        if row["fits"] is None:
            break
        if seen.get(b) and seen.get(b + 1) is False or seen.get(b) is False and seen.get(b - 1):
            break
        b = b + 1 if row["fits"] else b - 1
        if b in seen:
            break
    with open(out, "w") as w:
        for r in rows:
            w.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
