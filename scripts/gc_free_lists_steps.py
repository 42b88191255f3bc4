#!/usr/bin/env python3
"""Writes a copy of a leak experiment that reads CPython's free lists of
lists, dicts and tuples (sys._debugmallocstats(), to the C stderr) before
and after each statement of its top-level loops' bodies, where
scripts/gc_free_lists_rounds.sh reads them only before each print: which
statement of a round takes or gives back what, when a free list runs dry
(a served object counts nothing, so gc.get_count() cannot show it).
`import torch` becomes `import torch, sys` (sys is imported already);
each read is a call that allocates nothing, but a call is also a check of
the evaluation loop, so a collection an allocation scheduled may run at
a read rather than at the program's next check:

    python3 scripts/gc_free_lists_steps.py SRC.py OUT.py
    python3 scripts/record_gc.py OUT.py OUT.jsonl 2>OUT.stderr
"""
import ast
import sys


def main(src, out):
    with open(src) as f:
        text = f.read()
    lines = text.splitlines()
    reads = {}  # line index after which a read goes -> indentation
    for stmt in ast.parse(text).body:
        if not isinstance(stmt, (ast.For, ast.While)):
            continue
        body = stmt.body
        indent = " " * body[0].col_offset
        reads[body[0].lineno - 2] = indent
        for s in body:
            reads[s.end_lineno - 1] = indent
    with open(out, "w") as f:
        for i, line in enumerate(lines):
            f.write(("import torch, sys" if line == "import torch" else line) + "\n")
            if i in reads:
                f.write(reads[i] + "sys._debugmallocstats()\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: gc_free_lists_steps.py SRC.py OUT.py")
    main(sys.argv[1], sys.argv[2])
