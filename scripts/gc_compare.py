#!/usr/bin/env python3
"""Compare gc.get_count() after every top-level statement of Python
programs between CPython and gpumemrepl.

    python3 scripts/gc_compare.py PYTHON3 GPUMEMREPL FILE.py...

Each program is run as an instrumented copy by both: after every
top-level statement a line prints gc.get_count() (the instrumentation
is the same for both and keeps nothing: its 3-tuple goes back to
CPython's free list). Prints, per program, how many statements'
counts are equal, the first that differs and the largest difference of
generation 0's count, then the totals.
"""
import ast
import json
import os
import subprocess
import sys
import tempfile

MARK = "__gc_counts__"


def instrument(src):
    tree = ast.parse(src)
    lines = src.splitlines()
    out = ["import gc as __gc__"]
    prev = 0
    for stmt in tree.body:
        end = stmt.end_lineno
        out.extend(lines[prev:end])
        out.append(f"print('{MARK}', *__gc__.get_count())")
        prev = end
    return "\n".join(out) + "\n"


def counts(cmd, path):
    p = subprocess.run(cmd + [path], capture_output=True, text=True, timeout=120, cwd=os.path.dirname(path))
    return [[int(x) for x in line.split()[1:4]] for line in p.stdout.splitlines() if line.startswith(MARK + " ")]


def main():
    py, tool, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    tot_eq = tot = tot_same = tot_steps = 0
    worst = []
    for f in files:
        with open(f) as r:
            src = instrument(r.read())
        d = tempfile.mkdtemp()
        path = os.path.join(d, os.path.basename(f))
        with open(path, "w") as w:
            w.write(src)
        a = counts([py], path)
        b = counts([tool], path)
        name = os.path.basename(f)
        n = min(len(a), len(b))
        if n == 0:
            print(f"{name}: no statement finished (python {len(a)}, tool {len(b)})")
            continue
        eq = sum(1 for i in range(n) if a[i] == b[i])
        same_step = sum(1 for i in range(1, n) if a[i][0] - a[i - 1][0] == b[i][0] - b[i - 1][0] and a[i][1:] == a[i - 1][1:] and b[i][1:] == b[i - 1][1:])
        steps = sum(1 for i in range(1, n) if a[i][1:] == a[i - 1][1:] and b[i][1:] == b[i - 1][1:])
        drift = [abs((b[i][0] - b[0][0]) - (a[i][0] - a[0][0])) for i in range(n)]
        coll_a = sum(1 for i in range(1, n) if a[i][1:] != a[i - 1][1:])
        coll_b = sum(1 for i in range(1, n) if b[i][1:] != b[i - 1][1:])
        tot_eq += eq
        tot += n
        tot_same += same_step
        tot_steps += steps
        print(f"{name}: {n} statements ({len(a)} python, {len(b)} tool); equal {eq}; same change {same_step}/{steps} "
              f"where neither collected; collections {coll_a} python, {coll_b} tool; drift from the first statement max {max(drift)}, last {drift[-1]}")
    print(f"total: {tot_eq}/{tot} statements equal; the change of generation 0's count the same in {tot_same}/{tot_steps} statements where neither collected")


def show(py, tool, f):
    """Both sequences side by side, with each statement's change."""
    with open(f) as r:
        src = instrument(r.read())
    d = tempfile.mkdtemp()
    path = os.path.join(d, os.path.basename(f))
    with open(path, "w") as w:
        w.write(src)
    a, b = counts([py], path), counts([tool], path)
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        dx = x[0] - a[i - 1][0] if x and i else None
        dy = y[0] - b[i - 1][0] if y and i else None
        print(i + 1, x, y, dx, dy, "" if dx == dy else "<<")


if __name__ == "__main__":
    if sys.argv[1] == "--show":
        show(*sys.argv[2:5])
    else:
        main()
