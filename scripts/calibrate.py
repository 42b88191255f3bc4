#!/usr/bin/env python3
"""Teach gpumemrepl your GPU: record, on this machine's GPU, exactly the
convolutions a program runs, into a calibration file that gpumemrepl
reads beside its built-in tables (docs/calibration.md). The program's
figures that rested on estimated cuDNN workspaces are then exact.

    python3 scripts/calibrate.py PROGRAM.py [-o OUT.jsonl]
    gpumemrepl run --calibration OUT.jsonl PROGRAM.py

Needs PyTorch with CUDA. The program runs once, as `python3 PROGRAM.py`
would (keep it short: a step or two of training is enough), with
torch.nn.functional's convolutions wrapped to note each configuration
(scripts/conv_configs.py: shapes, stride, padding, dilation, groups,
bias, dtype as autocast gives it, layout, cudnn.deterministic, which
grads autograd asks); then each configuration runs alone here, its
forward and a backward per grad mask, under the allocator's trace
(scripts/conv_record.py). OUT.jsonl (default: PROGRAM.calibration.jsonl
beside the program) is the conv table's compact form, its first line
naming the GPU, PyTorch and cuDNN it was recorded with. What is
calibrated: cuDNN's convolutions (plain and transposed, 1-d to 3-d);
other kernels' scratch is not yet.
"""
import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conv_configs  # noqa: E402
import conv_record  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program")
    ap.add_argument("-o", "--out", help="the calibration file (default PROGRAM.calibration.jsonl)")
    opts = ap.parse_args()
    out = opts.out or os.path.splitext(opts.program)[0] + ".calibration.jsonl"
    found = conv_configs.configs_of(opts.program)
    if not found:
        sys.exit(f"calibrate.py: {opts.program} ran no convolution (or failed before its first): nothing to calibrate")
    cfgs = []
    for cfg in found:
        if cfg.pop("device") != "cuda":
            continue
        if cfg["format"] not in ("contiguous", "channels_last") or cfg["dtype"] not in ("float32", "float16", "bfloat16"):
            print(f"not calibrated (gpumemrepl does not model it): {json.dumps(cfg)}", file=sys.stderr)
            continue
        cfgs.append(cfg)
    import torch
    torch.backends.cudnn.benchmark = False
    lines, errors = [], 0
    for cfg in cfgs:
        masks = [m for m, grad in cfg.pop("bwd") if grad == "dense"]
        line = conv_record.record(torch, cfg, masks)
        errors += '"error"' in line
        lines.append(line)
    header = {"calibration": os.path.basename(opts.program), "made": datetime.datetime.now().isoformat(timespec="seconds"),
              "by": "scripts/calibrate.py", "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cudnn": torch.backends.cudnn.version(), "allow_tf32": torch.backends.cudnn.allow_tf32,
              "configurations": len(lines)}
    with open(out, "w") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write(line + "\n")
    print(f"{len(lines)} convolution configurations recorded in {out}"
          + (f" ({errors} could not be: their lines say why)" if errors else ""))
    print(f"run: gpumemrepl run --calibration {out} {opts.program}")


if __name__ == "__main__":
    main()
