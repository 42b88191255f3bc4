#!/usr/bin/env python3
"""Record a .py script statement by statement as plain python3 runs it,
with CPython's collector counts after each top-level statement and,
once the script has imported torch, what cuda:0 reports.

    python3 scripts/record_gc.py SCRIPT.py OUT.jsonl
    python3 scripts/record_gc.py --start OUT.json   (what import torch leaves)
    python3 scripts/record_gc.py --lines SCRIPT.py OUT.jsonl
    python3 scripts/record_gc.py --trace SCRIPT.py OUT.jsonl

Why not record_script.py: its own work between statements (compiling the
next one, reading the devices, writing the row, a tee for stdout)
allocates and frees container objects, which moves CPython's free lists
and counts, so the collector runs by itself at other moments than in
plain python3 -- and a script whose tensors sit in reference cycles
then shows other figures. Here every statement is compiled before the
first runs, stdout goes to one StringIO made before (its position read
after each statement), figures go into array.array buffers, and reading
them runs with the collector disabled: between two statements the
recorder allocates no container, so the collector sees the script's own
allocations only. Each row says so: "gc" is gc.get_count() as the
statement finished, "gc_after" after the devices were read (equal when
reading them changed nothing; CPython's free lists absorb what
memory_stats() makes and frees).

The rows have record_script.py's fields: "line" (the statement's first
line, decorators included), "end_line", "source", "stdout", "error"
(null, or "Type: message" for the statement that ended the script: as
in python3, nothing after it runs) and "devices" (null until torch is
imported; then cuda:0's allocated, reserved, max_allocated,
max_reserved), and "gc", "gc_after".

--lines records as the first form does and also gc.get_count() after
every statement inside the script's compound statements (loop bodies,
function bodies), in OUT.lines.json: [[line, count0, count1, count2],
...] in the order they ran. Each probe is two calls of built-ins that
allocate no container (list.extend of gc.get_count()'s tuple, which
CPython's free list serves, and list.append of the line), into a list
made before the script runs; what it adds is an evaluation-loop check
after each statement, which runs a collection an allocation scheduled
no later than the program's own next check would. Compiling the probes
moves the counts before the script's first statement, as compiling any
script does; what each statement adds is the same.

--trace records as the first form does and also, in OUT.trace.json.gz,
gc.get_count() after every line that any Python code runs from the
script's first statement on (torch's own Python and the recorder's
reads between statements included; not inside a top-level import
statement, whose millions of lines, import torch's, would not come
back from the GPU machine), each collection as it starts, and
each statement's end: {"codes": ["FILE:FUNCTION", ...], "events":
[[code, line, count0, count1, count2], ...], "ends": [events before
the end of statement 0, 1, ...], "collections": [[events before it,
generation, count0, count1, count2], ...]}, code an index into codes. Python 3.12's sys.monitoring calls
a function at each line, which allocates no container; but its call is
an evaluation-loop check, so a collection an allocation scheduled runs
at the next line rather than at the program's next check, and the
figures may differ from the plain recording's: what the trace is for is
what each line allocates. Before 3.12 the trace is sys.settrace's,
whose frame objects count as well.

--start writes, as JSON, what a fresh process's collector holds after
`import torch`, made after as many throwaway lists as each of several
counts, to show whether that state depends on what ran before: counts,
len(gc.get_objects()) per generation, and the free lists
(sys._debugmallocstats, read from a child process's stderr).
"""
import array
import ast
import gc
import gzip
import io
import json
import os
import subprocess
import sys
import types

import builtins


class Probes(ast.NodeTransformer):
    """Puts a probe after every statement of every body inside the
    top-level statements (not after one that leaves its body)."""

    def probe(self, stmt):
        text = f"_gcprobe_list.extend(_gcprobe_count()); _gcprobe_list.append({stmt.lineno})"
        return [ast.copy_location(s, stmt) for s in ast.parse(text).body]

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt) or isinstance(node, ast.Module):
                continue
            out = []
            for stmt in body:
                out.append(stmt)
                if not isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                    out.extend(self.probe(stmt))
            setattr(node, field, out)
        return node


def compile_steps(path, probes=False):
    """The script's top-level statements, each compiled alone, with its
    lines; with probes, each with Probes' probes in it."""
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    if probes:
        tree = ast.fix_missing_locations(Probes().visit(tree))
    lines = source.decode("utf-8", "replace").splitlines()
    steps = []
    flags = 0
    for stmt in tree.body:
        code = compile(ast.Module(body=[stmt], type_ignores=[]), path, "exec", flags=flags, dont_inherit=True)
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            import __future__
            for alias in stmt.names:
                flags |= getattr(__future__, alias.name).compiler_flag
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        steps.append((code, first, stmt.end_lineno, isinstance(stmt, (ast.Import, ast.ImportFrom))))
    return steps, lines


class Trace:
    """gc.get_count() after every line run (five ints an event: code,
    line, counts), and where each collection started and each statement
    ended (the count of line events by then), allocating no container
    as it records."""

    def __init__(self):
        self.events, self.codes, self.collections, self.ends = [], {}, [], []
        events, codes, collections, get_count = self.events, self.codes, self.collections, gc.get_count

        def line(code, n):
            codes[id(code)] = code
            events.append(id(code))
            events.append(n)
            events.extend(get_count())

        def collecting(phase, info):
            if phase == "start":
                collections.append(len(events) // 5)
                collections.append(info["generation"])
                collections.extend(get_count())

        self.line, self.collecting = line, collecting

    def start(self):
        gc.callbacks.append(self.collecting)
        mon = getattr(sys, "monitoring", None)
        if mon is None:
            line = self.line

            def local(frame, event, arg):
                if event == "line":
                    line(frame.f_code, frame.f_lineno)
                return local

            self.tracer = lambda frame, event, arg: local
            return
        mon.use_tool_id(mon.DEBUGGER_ID, "record_gc")
        mon.register_callback(mon.DEBUGGER_ID, mon.events.LINE, self.line)

    def follow(self, on):
        """Records lines from now on, or not (a top-level import's)."""
        mon = getattr(sys, "monitoring", None)
        if mon is not None:
            mon.set_events(mon.DEBUGGER_ID, mon.events.LINE if on else 0)
        else:
            sys.settrace(self.tracer if on else None)

    def mark(self):
        """A statement's end."""
        self.ends.append(len(self.events) // 5)

    def stop(self, out):
        mon = getattr(sys, "monitoring", None)
        if mon is None:
            sys.settrace(None)
        else:
            mon.set_events(mon.DEBUGGER_ID, 0)
            mon.free_tool_id(mon.DEBUGGER_ID)
        if self.collecting in gc.callbacks:
            gc.callbacks.remove(self.collecting)
        else:
            # the program took it out (gc.callbacks.clear()): no
            # collection after that is in the trace
            print(f"record_gc.py: {out}: the program removed the recorder's gc callback; "
                  "the trace holds no collection after that", file=sys.stderr)
        index, names, rows = {}, [], []
        e = self.events
        for k in range(0, len(e) - 4, 5):
            if e[k] not in index:
                c = self.codes[e[k]]
                index[e[k]] = len(names)
                names.append(f"{c.co_filename}:{c.co_name}")
            rows.append([index[e[k]]] + e[k + 1:k + 5])
        c = self.collections
        trace = {"codes": names, "events": rows, "ends": self.ends,
                 "collections": [c[k:k + 5] for k in range(0, len(c) - 4, 5)]}
        with gzip.open(os.path.splitext(out)[0] + ".trace.json.gz", "wt") as w:
            json.dump(trace, w, separators=(",", ":"))


def record(script, out, probes=False, trace=None):
    steps, lines = compile_steps(script, probes)
    module = types.ModuleType("__main__")
    module.__file__ = script
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    sys.argv = [script]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    ns = module.__dict__
    if probes:
        ns["_gcprobe_list"], ns["_gcprobe_count"] = [], gc.get_count
    n = len(steps)
    counts = array.array("q", bytes(8 * 6 * n))  # gc before and after reading devices
    figures = array.array("q", bytes(8 * 4 * n))
    has = array.array("b", bytes(n))
    ends = array.array("q", bytes(8 * n))
    buf = io.StringIO()
    real = sys.stdout
    error = None
    done = 0
    get_count, disable, enable, isenabled = gc.get_count, gc.disable, gc.enable, gc.isenabled
    modules = sys.modules
    codes = [s[0] for s in steps]
    imports = [s[3] for s in steps]
    i = 0
    sys.stdout = buf
    if trace:
        trace.start()
    try:
        for code in codes:
            if trace:
                trace.follow(not imports[i])
            try:
                exec(code, ns)
            finally:
                c = get_count()
                on = isenabled()
                disable()
                counts[6 * i], counts[6 * i + 1], counts[6 * i + 2] = c
                if trace:
                    trace.mark()
                del c
                ends[i] = buf.tell()
                torch = modules.get("torch")
                if torch is not None:
                    has[i] = 1
                    figures[4 * i] = torch.cuda.memory_allocated(0)
                    figures[4 * i + 1] = torch.cuda.memory_reserved(0)
                    figures[4 * i + 2] = torch.cuda.max_memory_allocated(0)
                    figures[4 * i + 3] = torch.cuda.max_memory_reserved(0)
                del torch
                c = get_count()
                counts[6 * i + 3], counts[6 * i + 4], counts[6 * i + 5] = c
                del c
                i += 1
                done = i
                if on:
                    enable()
    except BaseException as e:  # the statement that ended the script
        error = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    finally:
        sys.stdout = real
    gc.disable()
    if trace:
        trace.stop(out)
    text = buf.getvalue()
    with open(out, "w", encoding="utf-8") as w:
        start = 0
        for k in range(done):
            _, first, last, _ = steps[k]
            devices = None
            if has[k]:
                devices = [dict(zip(("allocated", "reserved", "max_allocated", "max_reserved"), figures[4 * k:4 * k + 4]))]
            row = {"line": first, "end_line": last, "source": lines[first - 1], "stdout": text[start:ends[k]],
                   "error": error if k == done - 1 else None,
                   "devices": devices, "gc": list(counts[6 * k:6 * k + 3]), "gc_after": list(counts[6 * k + 3:6 * k + 6])}
            start = ends[k]
            w.write(json.dumps(row, ensure_ascii=False) + "\n")
    if probes:
        p = ns.get("_gcprobe_list", [])
        with open(os.path.splitext(out)[0] + ".lines.json", "w") as w:
            json.dump([[p[i + 3], p[i], p[i + 1], p[i + 2]] for i in range(0, len(p) - 3, 4)], w)
    sys.stdout.write(text)


CHILD = r"""
import gc, sys
junk = [[] for _ in range(%d)]
import torch
c = gc.get_count()
gens = [len(gc.get_objects(g)) for g in range(3)]
print(list(c), gens, flush=True)
sys._debugmallocstats()
"""


def start_states(out):
    rows = []
    for k in (0, 100, 250, 400, 550, 690, 1000, 5000):
        p = subprocess.run([sys.executable, "-c", CHILD % k], capture_output=True, text=True, timeout=120)
        first = p.stdout.strip().splitlines()[0] if p.stdout.strip() else ""
        free = [l.strip() for l in p.stderr.splitlines() if " free " in l and ("PyDict" in l or "PyList" in l or "PyTuple" in l)]
        rows.append({"junk_lists": k, "after_import_torch": first, "free_lists": free, "rc": p.returncode,
                     "stderr_tail": p.stderr[-300:] if p.returncode else ""})
    with open(out, "w") as w:
        json.dump({"python": sys.version, "states": rows}, w, indent=1)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--start"] and len(args) == 2:
        start_states(args[1])
    elif args[:1] == ["--lines"] and len(args) == 3:
        record(args[1], args[2], probes=True)
    elif args[:1] == ["--trace"] and len(args) == 3:
        record(args[1], args[2], trace=Trace())
    elif len(args) == 2:
        record(args[0], args[1])
    else:
        sys.exit(__doc__)
