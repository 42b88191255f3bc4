#!/usr/bin/env python3
"""List the convolution configurations a PyTorch program runs, in the form
scripts/probe_conv.py's table mode takes (--configs FILE.json).

    python3 scripts/conv_configs.py [--jobs N] OUT.json PROGRAM.py [PROGRAM.py ...]

Each program runs as `python3 PROGRAM.py` would, in a process of its own
(run from this one with runpy), with F.conv1d/2d/3d and
F.conv_transpose1d/2d/3d wrapped: each call is noted (the input's and
weight's shapes, stride, padding, dilation, groups, whether a bias is
given, the dtype the convolution runs in -- autocast's where autocast
casts it --, the layout it runs in (a strided input is copied dense
first), cudnn.deterministic, and which of input,
weight and bias autograd asks a gradient of) and the wrapped function is
called unchanged. A transposed convolution's entry has "transposed": true
and its "output_padding". The configurations of all the programs go to
OUT.json, each once, its grad masks merged, each with a dense incoming
gradient. With --jobs N, N programs run at once. Reading shapes allocates nothing on the GPU; a program's own
memory is recorded separately, without the wrappers
(scripts/record_script.py).
"""
import json
import runpy
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def spatial(v, dims):
    """An int or a sequence as one value per spatial dimension."""
    if isinstance(v, int):
        return [v] * dims
    return [int(i) for i in v]


def install(torch, found):
    """Wrap torch.nn.functional's convolutions to note each call in found."""
    F = torch.nn.functional

    def note(x, w, b, dims, stride, padding, dilation, groups, output_padding=None):
        if isinstance(padding, str):
            if padding != "valid":
                return  # 'same': PyTorch pads first where it must; not a table configuration
            padding = 0
        dtype = x.dtype
        if torch.is_autocast_enabled("cuda") and x.is_cuda and dtype == torch.float32:
            dtype = torch.get_autocast_dtype("cuda")
        # a strided input is made contiguous before the convolution
        # proper (its layout as PyTorch suggests it: channels_last only
        # where input or weight is), so the configuration is the dense one
        channels_last = x.dim() == 4 and (x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()
                                          or w.is_contiguous(memory_format=torch.channels_last) and not w.is_contiguous())
        fmt = "channels_last" if channels_last else "contiguous"
        cfg = {"x": list(x.shape), "w": list(w.shape), "stride": spatial(stride, dims), "padding": spatial(padding, dims),
               "dilation": spatial(dilation, dims), "groups": int(groups), "bias": b is not None,
               "dtype": str(dtype).replace("torch.", ""), "format": fmt,
               "deterministic": bool(torch.backends.cudnn.deterministic), "device": x.device.type}
        if output_padding is not None:
            cfg["transposed"] = True
            cfg["output_padding"] = spatial(output_padding, dims)
        mask = ""
        if torch.is_grad_enabled():
            mask = "".join(k for k, t in (("x", x), ("w", w), ("b", b)) if t is not None and t.requires_grad)
        key = json.dumps(cfg, sort_keys=True)
        found.setdefault(key, set())
        if mask:
            found[key].add(mask)

    def wrap(fn, dims):
        def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
            note(input, weight, bias, dims, stride, padding, dilation, groups)
            return fn(input, weight, bias, stride, padding, dilation, groups)
        return conv

    def wrap_t(fn, dims):
        def conv_t(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
            note(input, weight, bias, dims, stride, padding, dilation, groups, output_padding)
            return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
        return conv_t

    for dims in (1, 2, 3):
        setattr(F, f"conv{dims}d", wrap(getattr(F, f"conv{dims}d"), dims))
        setattr(F, f"conv_transpose{dims}d", wrap_t(getattr(F, f"conv_transpose{dims}d"), dims))


def run_one(program):
    """Run one program with the wrappers; print its configurations as JSON."""
    import torch
    found = {}
    install(torch, found)
    sys.argv = [program]
    try:
        runpy.run_path(program, run_name="__main__")
    finally:
        out = []
        for key, masks in found.items():
            cfg = json.loads(key)
            cfg["bwd"] = [[m, "dense"] for m in sorted(masks)]
            out.append(cfg)
        sys.__stdout__.write("\nCONV_CONFIGS " + json.dumps(out) + "\n")


def configs_of(program):
    """The configurations one program runs (a process of its own)."""
    res = subprocess.run([sys.executable, __file__, "--one", program], capture_output=True, text=True)
    lines = [l for l in res.stdout.splitlines() if l.startswith("CONV_CONFIGS ")]
    if res.returncode != 0 or not lines:
        print(f"{program}: exit {res.returncode}\n{res.stderr[-2000:]}", file=sys.stderr)
    return json.loads(lines[-1][len("CONV_CONFIGS "):]) if lines else []


def main():
    args = sys.argv[1:]
    if args[:1] == ["--one"] and len(args) == 2:
        run_one(args[1])
        return
    jobs = 1
    if args[:1] == ["--jobs"] and len(args) > 1:
        jobs, args = int(args[1]), args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    out_path, programs = args[0], args[1:]
    merged = {}
    with ThreadPoolExecutor(jobs) as pool:
        for program, cfgs in zip(programs, pool.map(configs_of, programs)):
            print(f"{program}: {len(cfgs)} configurations", file=sys.stderr)
            for cfg in cfgs:
                bwd = cfg.pop("bwd")
                if cfg.pop("device") != "cuda":
                    continue
                merged.setdefault(json.dumps(cfg, sort_keys=True), set()).update(m for m, _ in bwd)
    out = []
    for key in sorted(merged):
        cfg = json.loads(key)
        cfg["bwd"] = [[m, "dense"] for m in sorted(merged[key])]
        out.append(cfg)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=0)
    print(f"{len(out)} configurations in {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
