#!/usr/bin/env python3
"""Record, in one GPU call, what PyTorch's CUDA caching allocator sees in
the forward and backward of every convolution the common image networks
run (scripts/conv_networks.py) over a grid of batch sizes, resolutions,
dtypes and layouts: gpumemrepl's built-in conv table
(testdata/conv/README.md, "The networks' grid").

    python3 scripts/probe_conv_grid.py OUTDIR [--seconds S] [--workers N]
        [--skip FILE.jsonl.gz ...] [--check] [--dry-run]

The configurations come in priority order (below), so that a run cut
short by --seconds (default 200) has recorded the most used first; a
later run with --skip over the earlier recordings goes on where it
stopped. N worker processes (default 6) take configurations in that order
from one queue, each its own allocator, under a shared budget of GPU
memory (each configuration reserves a bound of what it can use before it
runs, so that workers never run out of memory beside each other: an out
of memory would change cuDNN's choice). torch.backends.cudnn.benchmark is
off (PyTorch's default). Each configuration's input and weight are made
(torch.empty: values do not change what is allocated) with
requires_grad as the network has it (its first layer asks no input
gradient), then the forward and the backward of a dense incoming
gradient each run under the allocator's trace
(torch.cuda.memory._record_memory_history, no stacks); each kept
allocation is named by its address (the output's, each gradient's).

Writes OUTDIR/networks.jsonl.gz: a header line (versions, device, the
grid's definition, how far it got), then one line a configuration in
the conv table's compact form (scripts/conv_compact.py), in priority
order; OUTDIR/networks_stats.json: per worker, configurations done and
seconds, per tier how many were recorded. --check also writes
OUTDIR/networks_check.json: torchvision's own models (on the meta
device, no memory) walked with F.conv2d wrapped, each convolution they
run at 224x224 that conv_networks.py does not list (a mistake in the
lists). --dry-run prints the tiers' sizes and the first configurations,
and runs nothing (no PyTorch needed).

Priority: tier 1, every family at its usual resolution (224; CIFAR's
ResNet at 32) at batch 32, 1, 64, 16, 8, 128, 256, 4, 2, in float32,
bfloat16, float16, NCHW; then batches 3, 12, 24, 48, 96 of ResNet-50,
MobileNetV2 and ConvNeXt-T there (the estimate's held-out check between
recorded batches); tier 2 the same in channels_last; tier 3 the other
resolutions (32 to 512) NCHW, tier 4 channels_last.
"""
import argparse
import gzip
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conv_compact  # noqa: E402
import conv_record  # noqa: E402
import conv_networks  # noqa: E402

BATCHES = [32, 1, 64, 16, 8, 128, 256, 4, 2]
HELD_BATCHES = [3, 12, 24, 48, 96]
HELD_FAMILIES = ["resnet50", "mobilenet_v2", "convnext_tiny"]
DTYPES = ["float32", "bfloat16", "float16"]
USUAL = {"resnet18_cifar": 32, "dcgan": 64}
ELEMENT = {"float32": 4, "bfloat16": 2, "float16": 2}
GIB = 1 << 30


def config(layer, n, dtype, fmt):
    """A layer at batch n as the conv table's configuration (with its
    grad mask: a first layer asks no input gradient)."""
    l = layer
    if l["transposed"]:
        w = [l["c"], l["k"] // l["groups"], l["r"], l["r"]]
    else:
        w = [l["k"], l["c"] // l["groups"], l["r"], l["r"]]
    cfg = {"x": [n, l["c"], l["h"], l["w"]], "w": w, "stride": [l["stride"]] * 2, "padding": [l["pad"]] * 2,
           "dilation": [1, 1], "groups": l["groups"], "bias": l["bias"], "dtype": dtype, "format": fmt,
           "deterministic": False}
    if l["transposed"]:
        cfg["transposed"] = True
        cfg["output_padding"] = [0, 0]
    cfg["mask"] = ("w" if l["first"] else "xw") + ("b" if l["bias"] else "")
    return cfg


def out_shape(cfg):
    """The output's shape."""
    n, c, h, w = cfg["x"]
    r, s, p = cfg["w"][2], cfg["stride"][0], cfg["padding"][0]
    if cfg.get("transposed"):
        k = cfg["w"][1] * cfg["groups"]
        o = [(h - 1) * s - 2 * p + r, (w - 1) * s - 2 * p + r]
    else:
        k = cfg["w"][0]
        o = [(h + 2 * p - r) // s + 1, (w + 2 * p - r) // s + 1]
    return [n, k] + o


def footprint(cfg):
    """A bound of the bytes a configuration's forward and backward can
    hold at once: input, weight, output, the incoming gradient and the
    gradients, and workspaces up to twice them all (the largest recorded
    is x + y + w plus 37 MB), with the segments' rounding."""
    e = ELEMENT[cfg["dtype"]]
    x = conv_compact.prod(cfg["x"]) * e
    w = conv_compact.prod(cfg["w"]) * e
    y = conv_compact.prod(out_shape(cfg)) * e
    return 2 * x + 2 * y + 2 * w + 2 * (x + y + w) + (256 << 20)


def tiers():
    """The grid's configurations in priority order, as (tier, cfg)."""
    def layers(resolutions_of):
        for name in conv_networks.FAMILIES:
            for res in resolutions_of(name):
                yield from conv_networks.FAMILIES[name](res)

    def usual(name):
        return [USUAL.get(name, 224)]

    def others(name):
        return [r for r in conv_networks.RESOLUTIONS if r not in usual(name)]

    def distinct(it):
        seen, out = set(), []
        for l in it:
            key = conv_networks.layer_key(l)
            if key not in seen and l["h"] >= 1:
                seen.add(key)
                out.append(l)
        return out

    main = distinct(layers(usual))
    held = distinct(l for name in HELD_FAMILIES for l in conv_networks.FAMILIES[name](224))
    rest = distinct(layers(others))
    out, seen = [], set()

    def add(tier, ls, batches, fmt):
        for n in batches:
            for dtype in DTYPES:
                for l in ls:
                    cfg = config(l, n, dtype, fmt)
                    key = json.dumps(conv_compact.config_key(cfg))
                    if key not in seen:
                        seen.add(key)
                        out.append((tier, cfg))
    for tier, fmt in ((1, "contiguous"), (2, "channels_last")):
        add(tier, main, BATCHES, fmt)
        add(tier, held, HELD_BATCHES, fmt)
    for tier, fmt in ((3, "contiguous"), (4, "channels_last")):
        add(tier, rest, BATCHES, fmt)
    return out


def recorded(paths):
    """The configurations (their keys) the files already record."""
    keys = set()
    for p in paths:
        with gzip.open(p, "rt") if p.endswith(".gz") else open(p) as f:
            for text in f:
                rec = json.loads(text)
                if "fwd" in rec:
                    keys.add(json.dumps(conv_compact.config_key(rec)))
    return keys


def plan(opts):
    """The configurations to probe, in order (tier, cfg); those recorded
    already (keys); those over the budget."""
    skip = recorded(opts.skip)
    todo = [(t, c) for t, c in tiers() if json.dumps(conv_compact.config_key(c)) not in skip]
    limit = int(opts.budget_gib * GIB)
    too_big = [c for _, c in todo if footprint(c) > limit]
    return [(t, c) for t, c in todo if footprint(c) <= limit], skip, too_big


def worker(index, queue_next, budget, todo, out_path, stats):
    """One process: take the next configuration, reserve its footprint,
    record it (conv_record.record), until the queue or the time runs
    out."""
    import torch
    torch.backends.cudnn.benchmark = False
    torch.cuda.init()
    done, busy, start = 0, 0.0, time.monotonic()
    with open(out_path, "w") as out:
        while True:
            i = queue_next()
            if i is None:
                break
            tier, cfg = todo[i]
            need = footprint(cfg)
            budget.take(need)
            t0 = time.monotonic()
            line = conv_record.record(torch, cfg, [cfg["mask"]])
            if need > GIB:
                torch.cuda.empty_cache()
            budget.give(need)
            out.write(f"{i}\t{line}\n")
            done += 1
            busy += time.monotonic() - t0
    stats[index] = {"done": done, "busy_seconds": round(busy, 1), "seconds": round(time.monotonic() - start, 1)}


class Budget:
    """A shared count of GPU bytes the workers may still reserve."""

    def __init__(self, mp, total):
        self.cond = mp.Condition()
        self.free = mp.Value("q", total, lock=False)

    def take(self, n):
        with self.cond:
            while self.free.value < n:
                self.cond.wait()
            self.free.value -= n

    def give(self, n):
        with self.cond:
            self.free.value += n
            self.cond.notify_all()


def check_torchvision(path):
    """Each convolution torchvision's models run at 224x224 (meta device)
    that conv_networks.py does not list, per model."""
    import torch
    import torch.nn.functional as F
    import torchvision.models as tvm
    mine = set()
    for name in conv_networks.FAMILIES:
        for l in conv_networks.FAMILIES[name](224):
            mine.add((l["c"], l["k"], l["h"], l["r"], l["stride"], l["pad"], l["groups"], l["bias"]))
    seen = []
    plain = F.conv2d

    def spy(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
        s = stride if isinstance(stride, int) else stride[0]
        p = padding if isinstance(padding, int) else padding[0]
        seen.append((x.shape[1], w.shape[0], x.shape[2], w.shape[2], s, p, groups, b is not None))
        return plain(x, w, b, stride, padding, dilation, groups)
    F.conv2d = spy
    report = {}
    for name in ["resnet18", "resnet34", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "vgg16", "vgg11", "mobilenet_v2",
                 "mobilenet_v3_large", "mobilenet_v3_small", "efficientnet_b0", "efficientnet_b1", "efficientnet_b2",
                 "efficientnet_b3", "efficientnet_b4", "densenet121", "convnext_tiny", "convnext_base"]:
        seen.clear()
        try:
            with torch.device("meta"):
                model = getattr(tvm, name)()
                model(torch.empty(1, 3, 224, 224))
        except Exception as err:
            report[name] = f"{type(err).__name__}: {err}"[:200]
            continue
        missing = sorted(set(seen) - mine)
        report[name] = {"convs": len(seen), "not listed": missing}
    F.conv2d = plain
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seconds", type=float, default=200.0, help="stop starting configurations after this")
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--skip", nargs="*", default=[], help="recordings whose configurations are not probed again")
    ap.add_argument("--check", action="store_true", help="compare the lists with torchvision's models first")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--budget-gib", type=float, default=120.0, help="GPU memory the workers may hold together")
    opts = ap.parse_args()
    todo, skip, too_big = plan(opts)
    limit = int(opts.budget_gib * GIB)
    if opts.dry_run:
        per_tier = {}
        for t, c in todo:
            per_tier[t] = per_tier.get(t, 0) + 1
        print(f"{len(todo)} configurations to probe ({len(skip)} recorded already, {len(too_big)} over the "
              f"{opts.budget_gib:g} GiB budget left out); per tier: {per_tier}")
        big = sorted(footprint(c) for _, c in todo)
        print(f"footprint bound: median {big[len(big) // 2] / GIB:.2f} GiB, 99th percentile "
              f"{big[len(big) * 99 // 100] / GIB:.1f} GiB, largest {big[-1] / GIB:.1f} GiB")
        for t, c in todo[:5] + todo[-3:]:
            print(t, json.dumps(c))
        return
    import multiprocessing as mp
    ctx = mp.get_context("spawn")
    os.makedirs(opts.outdir, exist_ok=True)
    if opts.check:
        try:
            check_torchvision(os.path.join(opts.outdir, "networks_check.json"))
        except Exception as err:
            print("check:", type(err).__name__, err, file=sys.stderr)
    counter = ctx.Value("q", 0)
    deadline = time.time() + opts.seconds
    budget = Budget(ctx, limit)
    stats = ctx.Manager().dict()
    parts = [os.path.join(opts.outdir, f"part{i}.tsv") for i in range(opts.workers)]
    procs = [ctx.Process(target=run_worker, args=(i, counter, deadline, budget, opts, parts[i], stats))
             for i in range(opts.workers)]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    lines = {}
    for path in parts:
        if os.path.exists(path):
            with open(path) as f:
                for text in f:
                    i, line = text.rstrip("\n").split("\t", 1)
                    lines[int(i)] = line
            os.remove(path)
    import torch
    header = {"grid": "scripts/probe_conv_grid.py", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
              "device": torch.cuda.get_device_name(0), "allow_tf32": torch.backends.cudnn.allow_tf32,
              "sm_count": torch.cuda.get_device_properties(0).multi_processor_count, "workers": opts.workers,
              "seconds": round(time.monotonic() - t0, 1), "probed": len(lines), "of": len(todo),
              "skipped_recorded": len(skip), "over_budget": len(too_big)}
    with gzip.open(os.path.join(opts.outdir, "networks.jsonl.gz"), "wt", compresslevel=9) as out:
        out.write(json.dumps(header) + "\n")
        for i in sorted(lines):
            out.write(lines[i] + "\n")
    per_tier = {}
    for i in lines:
        per_tier[todo[i][0]] = per_tier.get(todo[i][0], 0) + 1
    with open(os.path.join(opts.outdir, "networks_stats.json"), "w") as f:
        json.dump({"header": header, "workers": dict(stats), "recorded_per_tier": per_tier}, f, indent=1)
    print(json.dumps(header))


def run_worker(index, counter, deadline, budget, opts, path, stats):
    """A worker process's entry: the shared queue is counter (the next
    configuration's index in plan's list, which each process makes
    alike) until deadline."""
    todo = plan(opts)[0]

    def queue_next():
        if time.time() > deadline:
            return None
        with counter.get_lock():
            i = counter.value
            if i >= len(todo):
                return None
            counter.value += 1
            return i
    worker(index, queue_next, budget, todo, path, stats)


if __name__ == "__main__":
    main()
