#!/usr/bin/env python3
"""Record what PyTorch's CUDA caching allocator sees around each Conv2d:
the output, the gradients and the cuDNN workspaces, in order, per call
(issue 15, part 4; testdata/conv/README.md says what was found).

    python3 scripts/probe_conv.py grid OUT.jsonl.gz [--seconds S]
    python3 scripts/probe_conv.py benchmark OUT.jsonl.gz [--seconds S]
    python3 scripts/probe_conv.py fallback OUT.jsonl.gz
    python3 scripts/probe_conv.py table OUT.jsonl.gz --configs FILE.json
    python3 scripts/probe_conv.py table OUT.jsonl.gz --config '{"x": [8, 3, 32, 32], "w": [16, 3, 3, 3], ...}'

grid: torch.backends.cudnn.benchmark=False (PyTorch's default) over shapes
that vary one factor at a time around three bases, each in float32,
float16 and bfloat16, contiguous and channels_last. benchmark: a few of the
same shapes with benchmark=True (run it in its own process: cuDNN's plan
cache is keyed by shape, not by the benchmark flag). fallback: the large
7x7 forward of issue_conv2d_workspace.py under memory limits that leave
less room than its workspace, to see which smaller workspace follows.
table: the configurations named (conv1d, conv2d or conv3d, with bias or
not, any stride, padding, dilation and groups, cudnn.deterministic on or
off), each forward and its backward for each pair of a grad mask ("xwb":
which of input, weight and bias require grad) and an incoming gradient
("dense", or "expanded": a broadcast one, as y.sum().backward() gives),
from a fresh forward each; what gpumemrepl's conv table holds
(testdata/conv/table.jsonl.gz; gpumemrepl names the --config line of a
convolution it does not find). A configuration with "transposed": true
(and "output_padding") is F.conv_transpose1d/2d/3d's, its weight
[in, out/groups, ...] (scripts/conv_configs.py lists a program's).

Each configuration runs from an empty cache (empty_cache, peaks reset) and
writes one JSON line: the shape, the conv backend PyTorch selects, the
byte sizes of input, weight and output, and for each phase (fwd: the
first forward; fwd2: the same forward again, its plan now cached; bwd:
backward of the first forward with input and weight requiring grad) the
allocator's trace events from torch.cuda.memory._record_memory_history,
each [action, size, addr_id] (addr_id numbers the addresses of the
phase in order of appearance, so a free pairs with its alloc) and the
peak allocated bytes over the phase's start.
"""
import argparse
import gzip
import json
import time

import torch
import torch.nn.functional as F

DTYPES = [("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16)]
FORMATS = [("contiguous", torch.contiguous_format), ("channels_last", torch.channels_last)]
ACTIONS = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "oom"}

BASE_A = dict(n=8, c=64, k=64, h=56, w=56, r=3, stride=1, pad=1, dil=1, groups=1)
BASE_B = dict(n=32, c=256, k=256, h=14, w=14, r=3, stride=1, pad=1, dil=1, groups=1)
# issue_conv2d_workspace.py's input and its 7x7 kernel
BASE_C = dict(n=1, c=128, k=64, h=768, w=1024, r=7, stride=1, pad=3, dil=1, groups=1)
FALLBACK_HEIGHTS = [768, 776, 784, 792]


def varied(base, key, values):
    """Copies of base with key set to each value; a kernel size r brings
    its 'same' padding r//2 along."""
    out = []
    for v in values:
        cfg = dict(base, **{key: v})
        if key == "r":
            cfg["pad"] = v // 2
        out.append(cfg)
    return out


def grid_shapes():
    """The grid: each base, then one factor varied at a time."""
    a = BASE_A
    shapes = [a, BASE_B, BASE_C]
    shapes += varied(a, "r", [1, 5, 6, 7])
    shapes += varied(a, "n", [1, 2, 4, 16, 32, 64])
    shapes += varied(a, "c", [3, 16, 32, 128, 256, 512])
    shapes += varied(a, "k", [3, 16, 32, 128, 256, 512])
    shapes += [dict(a, h=v, w=v) for v in [7, 14, 28, 112, 224, 256]]
    shapes += [dict(a, stride=2), dict(a, pad=0), dict(a, dil=2, pad=2), dict(a, groups=4), dict(a, groups=64)]
    shapes += varied(BASE_B, "n", [1, 8, 64]) + varied(BASE_B, "r", [1, 5, 7]) + [dict(BASE_B, stride=2)]
    shapes += varied(BASE_C, "r", [1, 3, 5, 6])
    shapes += [dict(BASE_C, h=h) for h in FALLBACK_HEIGHTS[1:]]
    return shapes


def benchmark_shapes():
    """The benchmark=True subset: the bases and a few kernel sizes."""
    return [BASE_A, BASE_B, BASE_C] + varied(BASE_A, "r", [1, 5, 7]) + [dict(BASE_A, n=64), dict(BASE_A, stride=2)]


def start_trace():
    """Start a fresh allocator history (the previous one is cleared)."""
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(
        enabled="all", context=None, stacks="python", max_entries=1 << 16, clear_history=True)


def read_trace():
    """The events since start_trace, as [action, size, addr_id]."""
    torch.cuda.synchronize()
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    ids = {}
    out = []
    for e in trace:
        if e["action"] not in ACTIONS:
            continue
        # an oom event has no address: it names the device's free bytes
        key = e["addr"] if "addr" in e else ("free", e.get("device_free"))
        out.append([e["action"], e["size"], ids.setdefault(key, len(ids))])
    return out


def phase(fn):
    """Run fn from a fresh trace and peak; its events, peak and result."""
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    start_trace()
    result = fn()
    events = read_trace()
    return {"events": events, "peak_over_start": torch.cuda.max_memory_allocated() - before}, result


def backend(x, w, cfg):
    """The ConvBackend PyTorch selects for this call, by name."""
    s, p, d = [cfg["stride"]] * 2, [cfg["pad"]] * 2, [cfg["dil"]] * 2
    try:
        return str(torch._C._select_conv_backend(x, w, None, s, p, d, False, [0, 0], cfg["groups"], None))
    except (AttributeError, RuntimeError, TypeError) as err:
        return f"unknown ({type(err).__name__})"


def nbytes(t):
    """Bytes of t's elements."""
    return t.numel() * t.element_size()


def probe(cfg, dtype, fmt, with_backward=True):
    """One configuration from an empty cache; its record."""
    torch.cuda.empty_cache()
    x = torch.empty((cfg["n"], cfg["c"], cfg["h"], cfg["w"]), device="cuda", dtype=dtype, memory_format=fmt).normal_()
    w = torch.empty((cfg["k"], cfg["c"] // cfg["groups"], cfg["r"], cfg["r"]), device="cuda", dtype=dtype,
                    memory_format=fmt).normal_(0, 0.05)
    x.requires_grad_(with_backward)
    w.requires_grad_(with_backward)
    args = (None, cfg["stride"], cfg["pad"], cfg["dil"], cfg["groups"])
    rec = dict(cfg, backend=backend(x, w, cfg), x_bytes=nbytes(x), w_bytes=nbytes(w))
    try:
        rec["fwd"], y = phase(lambda: F.conv2d(x, w, *args))
        rec["y_shape"], rec["y_bytes"] = list(y.shape), nbytes(y)
        rec["y_channels_last"] = y.is_contiguous(memory_format=torch.channels_last)
        with torch.no_grad():
            rec["fwd2"], _ = phase(lambda: F.conv2d(x, w, *args).shape)
        if with_backward:
            g = torch.empty_like(y).normal_()
            rec["bwd"], _ = phase(lambda: y.backward(g))
            del g
        del y
    except torch.OutOfMemoryError as err:
        rec["error"] = str(err).splitlines()[0]
    torch.cuda.memory._record_memory_history(enabled=None)
    del x, w
    return rec


def run_grid(shapes, out, seconds):
    """Probe every shape in every dtype and format until seconds pass."""
    end = time.monotonic() + seconds
    for cfg in shapes:
        for dname, dtype in DTYPES:
            for fname, fmt in FORMATS:
                if time.monotonic() > end:
                    out.write(json.dumps({"stopped": "time limit"}) + "\n")
                    return
                t0 = time.monotonic()
                rec = probe(cfg, dtype, fmt)
                rec.update(dtype=dname, format=fname, seconds=round(time.monotonic() - t0, 3))
                out.write(json.dumps(rec) + "\n")


def run_fallback(out):
    """The issue's 7x7 forward, fresh shapes each, with memory limits that
    leave the inputs, the output and a headroom less than the workspace."""
    total = torch.cuda.get_device_properties(0).total_memory
    for h, headroom in zip(FALLBACK_HEIGHTS, [0, 64 << 20, 256 << 20, 512 << 20]):
        cfg = dict(BASE_C, h=h)
        ho, wo = h + 2 * cfg["pad"] - cfg["r"] + 1, cfg["w"] + 2 * cfg["pad"] - cfg["r"] + 1
        need = 4 * (cfg["n"] * cfg["c"] * h * cfg["w"] + cfg["k"] * cfg["c"] * 49 + cfg["n"] * cfg["k"] * ho * wo)
        limit = need + headroom + (8 << 20)  # segment rounding and the weight's small segment
        torch.cuda.empty_cache()
        torch.cuda.set_per_process_memory_fraction(limit / total)
        rec = probe(cfg, torch.float32, torch.contiguous_format, with_backward=False)
        torch.cuda.set_per_process_memory_fraction(1.0)
        rec.update(dtype="float32", format="contiguous", limit_bytes=limit, headroom=headroom)
        out.write(json.dumps(rec) + "\n")


def table_record(cfg):
    """One configuration of the table mode: its forward, then a backward
    for each [mask, grad] of cfg["bwd"], from an empty cache each."""
    dtype = dict(DTYPES)[cfg.get("dtype", "float32")]
    fmt = dict(FORMATS)[cfg.get("format", "contiguous")]
    dims = len(cfg["x"]) - 2
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dims]
    if cfg.get("transposed"):
        plain = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[dims]
        out_pad = cfg.get("output_padding", [0] * dims)

        def conv(x, w, b, stride, padding, dilation, groups):
            return plain(x, w, b, stride, padding, out_pad, groups, dilation)
    torch.backends.cudnn.deterministic = bool(cfg.get("deterministic", False))
    rec = dict(cfg, dims=dims)

    def run(mask, grad):
        torch.cuda.empty_cache()
        x = torch.randn(cfg["x"], device="cuda", dtype=dtype)
        w = torch.randn(cfg["w"], device="cuda", dtype=dtype) * 0.05
        if fmt is not torch.contiguous_format:
            x, w = x.contiguous(memory_format=fmt), w.contiguous(memory_format=fmt)
        out_channels = cfg["w"][1] * cfg["groups"] if cfg.get("transposed") else cfg["w"][0]
        b = torch.zeros(out_channels, device="cuda", dtype=dtype) if cfg.get("bias") else None
        for t, key in ((x, "x"), (w, "w"), (b, "b")):
            if t is not None:
                t.requires_grad_(key in mask)
        args = (b, cfg["stride"], cfg["padding"], cfg["dilation"], cfg["groups"])
        fwd, y = phase(lambda: conv(x, w, *args))
        out = {"fwd": fwd, "y_shape": list(y.shape), "y_bytes": nbytes(y), "x_bytes": nbytes(x), "w_bytes": nbytes(w)}
        if grad:
            g = torch.randn_like(y) if grad == "dense" else torch.ones((), device="cuda", dtype=dtype).expand(y.shape)
            out["bwd"], _ = phase(lambda: y.backward(g))
            del g
        torch.cuda.memory._record_memory_history(enabled=None)
        return out

    try:
        first = run("", None)
        rec.update({k: first[k] for k in ("y_shape", "y_bytes", "x_bytes", "w_bytes", "fwd")})
        rec["bwd_runs"] = []
        for mask, grad in cfg.get("bwd", []):
            r = run(mask, grad)
            rec["bwd_runs"].append({"mask": mask, "grad": grad, "fwd_events": r["fwd"]["events"], **r["bwd"]})
    except torch.OutOfMemoryError as err:
        rec["error"] = str(err).splitlines()[0]
    torch.backends.cudnn.deterministic = False
    return rec


def run_table(configs, out, seconds):
    """The table mode over configs until seconds pass."""
    end = time.monotonic() + seconds
    for cfg in configs:
        if time.monotonic() > end:
            out.write(json.dumps({"stopped": "time limit"}) + "\n")
            return
        t0 = time.monotonic()
        rec = table_record(cfg)
        rec["seconds"] = round(time.monotonic() - t0, 3)
        out.write(json.dumps(rec) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["grid", "benchmark", "fallback", "table"])
    ap.add_argument("out", help="where the JSON lines go (gzip)")
    ap.add_argument("--seconds", type=float, default=120.0, help="stop starting new configurations after this")
    ap.add_argument("--configs", help="table: a JSON file of a list of configurations")
    ap.add_argument("--config", action="append", default=[], help="table: one configuration as JSON (repeatable)")
    opts = ap.parse_args()
    configs = [json.loads(c) for c in opts.config]
    if opts.configs:
        with open(opts.configs) as f:
            configs += json.load(f)
    if opts.mode == "table" and not configs:
        ap.error("table needs --configs or --config")
    torch.cuda.init()
    torch.backends.cudnn.benchmark = opts.mode == "benchmark"
    with gzip.open(opts.out, "wt") as out:
        out.write(json.dumps({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                              "device": torch.cuda.get_device_name(0), "mode": opts.mode,
                              "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
                              "allow_tf32": torch.backends.cudnn.allow_tf32}) + "\n")
        if opts.mode == "fallback":
            run_fallback(out)
        elif opts.mode == "table":
            run_table(configs, out, opts.seconds)
        else:
            run_grid(grid_shapes() if opts.mode == "grid" else benchmark_shapes(), out, opts.seconds)


if __name__ == "__main__":
    main()
