#!/usr/bin/env python3
"""Run a gpumemrepl script that is plain PyTorch code in real PyTorch,
step by step, and record what each device reports after every step.

    python3 scripts/record_script.py SCRIPT.gpumem OUT.jsonl

Every line that is not blank or a comment is a step, as in
`gpumemrepl run`: a `with` block's header enters its context manager and
each indented line runs on its own, and the block's context exits at the
next line that is not indented. A step that raises is recorded with its
error and the script goes on (as `gpumemrepl run --keep-going`).

OUT.jsonl has one object per step: "line" (1-based, as gpumemrepl's
--json rows), "source", "error" (null, or "ExceptionType: message"), and
"devices": for every device torch.cuda.device_count() reports,
"allocated" and "reserved" (torch.cuda.memory_allocated/_reserved),
"max_allocated", "max_reserved", and "nvml_proc_used" (NVML's figure for
this process on that device; null where NVML does not list it).

The short names gpumemrepl accepts beside the PyTorch ones (Linear,
Sequential, ReLU, GELU, SGD, Adam, AdamW, F) are defined for the script.
"""
import json
import os
import sys

import torch


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


def steps(path):
    """Yield (line number, source, indented) for every step of a script."""
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            src = raw.rstrip("\n")
            body = src.strip()
            if body and not body.startswith("#"):
                yield n, src, src[0] in " \t"


def main(script, out):
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
            devices = []
            for i in range(torch.cuda.device_count()):
                devices.append({
                    "allocated": torch.cuda.memory_allocated(i),
                    "reserved": torch.cuda.memory_reserved(i),
                    "max_allocated": torch.cuda.max_memory_allocated(i),
                    "max_reserved": torch.cuda.max_memory_reserved(i),
                    "nvml_proc_used": used(i),
                })
            w.write(json.dumps({"line": n, "source": src, "error": error, "devices": devices}) + "\n")
            w.flush()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
