#!/usr/bin/env python3
"""Run a script in real PyTorch, step by step, and record what each device
reports after every step.

    python3 scripts/record_script.py SCRIPT.gpumem OUT.jsonl
    python3 scripts/record_script.py SCRIPT.py OUT.jsonl
    python3 scripts/record_script.py --events SCRIPT.py OUT.jsonl
    python3 scripts/record_script.py --addresses SCRIPT.py OUT.jsonl
    python3 scripts/record_script.py --gc [--events] SCRIPT.py OUT.jsonl

A .gpumem script (plain PyTorch code, as gpumemrepl reads it): every line
that is not blank or a comment is a step, as in `gpumemrepl run`: a `with`
block's header enters its context manager and each indented line runs on
its own, and the block's context exits at the next line that is not
indented; any other compound statement (def, for, if, try...) is one step,
its header and the lines under it. The short names gpumemrepl accepts beside the PyTorch ones
(Linear, Sequential, ReLU, GELU, SGD, Adam, AdamW, F) are defined for it.
Its rows have "line" (1-based, as gpumemrepl's --json rows), "source",
"error" and "devices".

A .py file runs as `python3 SCRIPT.py` runs it: one step per top-level
statement of its `ast.parse` tree (a whole `for`, `with`, `def` or `class`
is one step; a def's decorators belong to it), all in one module that is
`__main__` (so `if __name__ == "__main__":` runs), with `__file__` the
script's path, `sys.argv` `[path]` and `sys.path[0]` the script's folder.
`from __future__` imports carry to the later statements. Its rows have
"line" (the statement's first line, decorators included), "end_line",
"source" (the text of that first line), "stdout" (what the step printed,
exactly; it is also written through to this process's stdout), "error"
and "devices". A file that does not parse gives one row with the
SyntaxError and no devices.

In both, a step that raises is recorded and the script goes on (as
`gpumemrepl run --keep-going`); "error" is null or "ExceptionType:
message" (the type alone when the message is empty). In a .py script,
SystemExit ends the script, as it would end Python, after its row.
"devices" has, for every device torch.cuda.device_count() reports,
"allocated" and "reserved" (torch.cuda.memory_allocated/_reserved),
"max_allocated", "max_reserved", and "nvml_proc_used" (NVML's figure for
this process on that device; null where NVML does not list it).

With --events (.py scripts), each row also has "events": what cuda:0's
caching allocator did during the step, in order, from its memory history
(torch.cuda.memory._record_memory_history, turned on when the script
first imports torch, with no stacks): [action, size] pairs, the actions
PyTorch's snapshots name (alloc, free_requested, segment_alloc,
segment_free, ...). Recording the history does not change what the
allocator does.

With --addresses (.py scripts), as --events, and each event is
[action, size, address], and each row also has "maps": the ranges of
this process's address space that the step mapped ("+") and unmapped
("-"), [sign, start, end, permissions] from /proc/self/maps, where the
CUDA driver's reservations of device address space show (the
allocator's segments, and what the driver and libraries reserve
beside them: testdata/segments/README.md).

With --gc (.py scripts), each row also has "gc": gc.get_count() the
moment the step's statement finished, before the recorder does anything
else. The recorder's own work between steps (compiling the next
statement, reading the devices, writing the row) runs with the
collector disabled, so it schedules no collection; what it allocates
there it frees before the next statement runs, so the counts the
script sees are those of plain python3, but for the few objects the
recorder keeps alive while a statement runs (its stdout tee, the
statement's code) when a collection happens inside that statement.
gc.disable() or gc.enable() in the script are honoured from one step
to the next.

A .py script's own state is left as the script would leave it: the
recorder keeps no step's value, exception or traceback (an error is
formatted to a string in its except clause, which drops it), and imports
torch only once the script has: until then "devices" is null, so a
setting made before `import torch` (os.environ["PYTORCH_CUDA_ALLOC_CONF"])
takes effect as it would. Reading the statistics does not initialize
CUDA. What the recorder cannot leave as it was: its own few Python objects
per step count towards the cyclic GC's thresholds, so a script whose
memory depends on when the collector runs by itself (not on gc.collect())
may see collections at other moments than under plain python3; and stderr
(warnings) is not captured.
"""
import ast
import builtins
import gc
import io
import json
import os
import re
import sys
import types
import __future__


def nvml_used():
    """Per-device NVML figure for this process, or None where unknown."""
    try:
        import pynvml
        pynvml.nvmlInit()
    except Exception:  # no pynvml, or no NVML
        return lambda i: None

    def used(i):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
            if p.pid == os.getpid():
                return p.usedGpuMemory
        return None
    return used


def device_rows(torch, used):
    """What every device reports now."""
    devices = []
    for i in range(torch.cuda.device_count()):
        devices.append({
            "allocated": torch.cuda.memory_allocated(i),
            "reserved": torch.cuda.memory_reserved(i),
            "max_allocated": torch.cuda.max_memory_allocated(i),
            "max_reserved": torch.cuda.max_memory_reserved(i),
            "nvml_proc_used": used(i),
        })
    return devices


def opens_block(body):
    """Whether a line is the header of a compound statement other than with."""
    if body.startswith("with "):
        return False
    try:
        compile(body, "<line>", "exec")
    except IndentationError as e:
        return "expected an indented block" in str(e)
    except SyntaxError:
        return False
    return False


CONTINUES = re.compile(r"(elif|else|except|finally)\b")


def steps(path):
    """Yield (line number, source, indented) for every step of a .gpumem
    script; a compound statement (def, for, if, try...) is one step, its
    header and the lines under it, dedented, as gpumemrepl runs it."""
    with open(path) as f:
        lines = [raw.rstrip("\n") for raw in f]
    i = 0
    while i < len(lines):
        src = lines[i]
        body = src.strip()
        i += 1
        if not body or body.startswith("#"):
            continue
        indent = src[: len(src) - len(src.lstrip(" \t"))]
        n = i
        if opens_block(body):
            block, keep = [body], 1
            while i < len(lines):
                t = lines[i]
                blank = not t.strip() or t.strip().startswith("#")
                inside = t.startswith(indent)
                rest = t[len(indent):] if inside else t.strip()
                deeper = inside and rest[:1] in (" ", "\t")
                if not blank and not deeper and not (inside and CONTINUES.match(rest)):
                    break
                block.append(rest)
                i += 1
                if not blank:
                    keep = len(block)
            body = "\n".join(block[:keep])
        yield n, indent + body, indent != ""


def record_gpumem(script, out):
    """Record a .gpumem script, one step a line."""
    import torch
    names = {"torch": torch, "F": torch.nn.functional}
    for short in ("Linear", "Sequential", "ReLU", "GELU"):
        names[short] = getattr(torch.nn, short)
    for short in ("SGD", "Adam", "AdamW"):
        names[short] = getattr(torch.optim, short)
    used = nvml_used()
    blocks = []  # context managers entered by with headers, innermost last
    with open(out, "w") as w:
        for n, src, indented in steps(script):
            error = None
            try:
                if not indented:
                    while blocks:
                        blocks.pop().__exit__(None, None, None)
                code = src.strip()
                if code.startswith("with ") and code.endswith(":"):
                    cm = eval(code[len("with "):-1], names)
                    cm.__enter__()
                    blocks.append(cm)
                else:
                    exec(code, names)
            except Exception as e:
                error = f"{type(e).__name__}: {e}"
            w.write(json.dumps({"line": n, "source": src, "error": error, "devices": device_rows(torch, used)}) + "\n")
            w.flush()


class Tee:
    """A stdout that keeps what is written and passes it on to the real one."""

    def __init__(self, real):
        self.real = real
        self.kept = io.StringIO()

    def write(self, s):
        self.kept.write(s)
        return self.real.write(s)

    def flush(self):
        self.real.flush()

    def __getattr__(self, name):
        return getattr(self.real, name)


def describe(e):
    """An exception as "ExceptionType: message", or the type alone."""
    msg = str(e)
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def first_line(stmt):
    """A statement's first line, its decorators included."""
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])


def is_docstring(stmt):
    """Whether a statement is a bare string, which only the first one of a module stores as __doc__."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def future_flags(stmt):
    """The compiler flags a `from __future__ import` statement turns on."""
    if not isinstance(stmt, ast.ImportFrom) or stmt.module != "__future__":
        return 0
    flags = 0
    for alias in stmt.names:
        feature = getattr(__future__, alias.name, None)
        if feature is not None:
            flags |= feature.compiler_flag
    return flags


def main_module(path):
    """A fresh __main__ module for the script, installed as Python installs one."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    sys.argv = [path]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    return module.__dict__


class History:
    """cuda:0's allocator events since the last call, once torch is imported."""

    def __init__(self, addresses=False):
        self.on = False
        self.seen = 0
        self.addresses = addresses

    def take(self, torch):
        if torch is None:
            return []
        if not self.on:
            torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 22)
            self.on = True
            return []
        traces = torch.cuda.memory._snapshot()["device_traces"]
        trace = traces[0] if traces else []
        new = [[e["action"], e["size"]] + ([e["addr"]] if self.addresses else []) for e in trace[self.seen:]]
        self.seen = len(trace)
        return new


def mappings():
    """This process's mapped address ranges: (start, end) -> permissions."""
    out = {}
    with open("/proc/self/maps") as f:
        for line in f:
            span, perms = line.split()[:2]
            start, end = span.split("-")
            out[(int(start, 16), int(end, 16))] = perms
    return out


class Maps:
    """The address ranges mapped and unmapped since the last call."""

    def __init__(self):
        self.last = mappings()

    def take(self):
        now = mappings()
        changes = [["-", a, b, p] for (a, b), p in sorted(self.last.items()) if now.get((a, b)) != p]
        changes += [["+", a, b, p] for (a, b), p in sorted(now.items()) if self.last.get((a, b)) != p]
        self.last = now
        return changes


def record_py(script, out, events=False, addresses=False, counts=False):
    """Record a .py script, one step a top-level statement."""
    with open(script, "rb") as f:
        source = f.read()
    lines = source.decode("utf-8", "replace").splitlines()
    with open(out, "w", encoding="utf-8") as w:
        def row(line, end_line, stdout, error, devices, step_events=None, step_maps=None, step_gc=None):
            text = lines[line - 1] if 0 < line <= len(lines) else ""
            r = {"line": line, "end_line": end_line, "source": text, "stdout": stdout, "error": error, "devices": devices}
            if counts:
                r["gc"] = list(step_gc)
            if events:
                r["events"] = step_events or []
            if addresses:
                r["maps"] = step_maps or []
            w.write(json.dumps(r, ensure_ascii=False) + "\n")
            w.flush()
        try:
            tree = ast.parse(source, filename=script)
        except SyntaxError as e:
            row(e.lineno or 0, e.lineno or 0, "", f"SyntaxError: {e.msg}", None)
            return
        used = nvml_used()
        history = History(addresses)
        maps = Maps() if addresses else None
        namespace = main_module(script)
        flags = 0
        real = sys.stdout
        enabled = gc.isenabled()
        step_gc = None
        for i, stmt in enumerate(tree.body):
            if counts:
                gc.disable()
            body = ast.Pass() if i > 0 and is_docstring(stmt) else stmt
            ast.copy_location(body, stmt)
            code = compile(ast.Module(body=[body], type_ignores=[]), script, "exec", flags=flags, dont_inherit=True)
            flags |= future_flags(stmt)
            tee = Tee(real)
            sys.stdout = tee
            error, stop = None, False
            if counts and enabled:
                gc.enable()
            try:
                exec(code, namespace)
            except SystemExit as e:
                error, stop = describe(e), True
            except Exception as e:
                error = describe(e)
            finally:
                if counts:
                    step_gc = gc.get_count()
                    enabled = gc.isenabled()
                    gc.disable()
                sys.stdout = real
            del code
            torch = sys.modules.get("torch")
            devices = device_rows(torch, used) if torch is not None else None
            step_events = history.take(torch) if events else None
            del torch
            step_maps = maps.take() if maps else None
            row(first_line(stmt), stmt.end_lineno, tee.kept.getvalue(), error, devices, step_events, step_maps, step_gc)
            del tee, step_events, step_maps, devices
            if stop:
                break
        if counts and enabled:
            gc.enable()


if __name__ == "__main__":
    args = sys.argv[1:]
    with_gc = args[:1] == ["--gc"]
    if with_gc:
        args = args[1:]
    with_addresses = args[:1] == ["--addresses"]
    with_events = with_addresses or args[:1] == ["--events"]
    if with_events:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    script_path, out_path = args
    if script_path.endswith(".py"):
        record_py(script_path, out_path, with_events, with_addresses, with_gc)
    else:
        record_gpumem(script_path, out_path)
