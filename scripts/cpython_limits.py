"""Measures how deep an expression CPython lets a file hold: for each
shape (a chain of binary operators, of method calls, of attributes...,
at module level and nested in statements), the most repeats that run and
the error of one more, found by bisection, running the file as
`python FILE` does. A shape's program of n repeats is head + repeat * n +
tail. python/syntax's TestDepthLimitsMatchCPython reads the result:

    python3.12 scripts/cpython_limits.py > python/syntax/testdata/cpython_limits.json
    python3 scripts/cpython_limits.py --dry-run   # each shape, small, runs
"""

import json
import os
import subprocess
import sys
import tempfile

CHAIN = " + x"
SHAPES = {
    "binop": ("x = 1\ny = x", CHAIN, "\n"),
    "method": ("x = 1\ny = x", ".conjugate()", "\n"),
    "attr": ("x = 1\ny = x", ".real", "\n"),
    "unary": ("x = 1\ny = ", "-", "x\n"),
    "subscript": ("x = []\nx.append(x)\ny = x", "[0]", "\n"),
    "not": ("x = 1\ny = ", "not ", "x\n"),
    "neg_power": ("x = 1\ny = x", " ** -x", "\n"),
    "binop_expr_stmt": ("x = 1\nx", CHAIN, "\n"),
    "binop_in_def": ("def f(x):\n    return x", CHAIN, "\n"),
    "binop_in_if3": ("x = 1\nif x:\n    if x:\n        if x:\n            y = x", CHAIN, "\n"),
    "binop_in_class": ("x = 1\nclass C:\n    y = x", CHAIN, "\n"),
    "binop_call_arg": ("x = 1\ny = print(x", CHAIN, ")\n"),
    "binop_in_list": ("x = 1\ny = [x", CHAIN, "]\n"),
    "binop_in_lambda": ("x = 1\ny = lambda: x", CHAIN, "\n"),
    "binop_keyword": ("x = 1\ny = dict(a=x", CHAIN, ")\n"),
    "method_in_def": ("def f(x):\n    return x", ".conjugate()", "\n"),
    # CPython's parser, not its compiler, refuses these
    "power": ("x = 1\ny = x", " ** x", "\n"),
    "power_expr_stmt": ("x = 1\nx", " ** x", "\n"),
    "power_in_def": ("def f(x):\n    return x", " ** x", "\n"),
    "power_in_if3": ("x = 1\nif x:\n    if x:\n        if x:\n            y = x", " ** x", "\n"),
    "power_call_arg": ("x = 1\ny = print(x", " ** x", ")\n"),
}


def program(shape, n):
    head, repeat, tail = shape
    return head + repeat * n + tail


def outcome(python, src):
    """None where the file runs; else the last line of its stderr."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(src)
    try:
        p = subprocess.run([python, f.name], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(f.name)
    if p.returncode == 0:
        return None
    lines = p.stderr.strip().splitlines()
    return lines[-1] if lines else "exit %d" % p.returncode


def limit(python, shape, cap=1 << 16):
    """The most repeats that run and the error of one more (None: no
    limit up to cap)."""
    lo, hi = 0, 1
    while outcome(python, program(shape, hi)) is None:
        lo, hi = hi, hi * 2
        if hi > cap:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if outcome(python, program(shape, mid)) is None:
            lo = mid
        else:
            hi = mid
    return {"max_ok": lo, "first_fail": hi, "error": outcome(python, program(shape, hi))}


def main():
    if "--dry-run" in sys.argv:
        for name, shape in SHAPES.items():
            err = outcome(sys.executable, program(shape, 3))
            print(name, "runs" if err is None else err)
        return
    out = {"python": sys.version.split()[0], "shapes": {}}
    for name, shape in SHAPES.items():
        head, repeat, tail = shape
        r = limit(sys.executable, shape)
        out["shapes"][name] = {"head": head, "repeat": repeat, "tail": tail, **r}
        print(name, r, file=sys.stderr)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
