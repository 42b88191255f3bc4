#!/usr/bin/env python3
"""Record the ground truth for `gpumemrepl diff` and pytorch#123548, on the GPU.

    python3 scripts/record_diff.py OUTDIR [GPT_TRAIN.pickle]    # on the GPU
    python3 scripts/record_diff.py --trace RUN OUT.json.gz          # no torch needed

Each run is its own process, with PYTORCH_CUDA_ALLOC_CONF set before CUDA
starts, and writes OUTDIR/NAME.pickle.gz (torch.cuda.memory._dump_snapshot,
gzipped) and OUTDIR/NAME.json (what PyTorch reported: memory_allocated and
memory_reserved with their peaks at each step, and the whole memory_stats()
at the end).

Runs:
- gpt_train_default, gpt_train_expandable: the gpt_train workload of the
  ground truth (testdata/truth/workloads, whose recording script is not
  kept), rebuilt from its description and its event sizes: a 4-layer GPT
  (d=512, 8 heads, vocab 8192, T=256, batch 8; each block LayerNorms,
  nn.MultiheadAttention without weights, a GELU MLP), AdamW, 3 steps;
  under the default config and under expandable_segments:True. The
  history is recorded with Python stacks (context="alloc"), so that diff
  can group allocations by frame and category. The rebuild is close, not
  exact: its steps' allocated and reserved figures are the ground
  truth's except during the second and third forwards (512 bytes more
  allocated: the step before's loss is still alive, and 15.2 MiB more at
  the second's peak), and its forward makes the position ids before the
  token embedding; peak and final reserved are the same (1010 MiB).
- gpt_train_replayed_expandable: the allocations and frees of
  GPT_TRAIN.pickle itself (the ground truth's recording, default config),
  made again in its order with caching_allocator_alloc/delete under
  expandable_segments:True: what PyTorch's allocator does with exactly
  that history under the other config.
- pytorch123548: the reproduction of pytorch#123548 (and PR #193400's
  description) under max_split_size_mb:128,expandable_segments:True: a
  64 MiB block, then 101 cycles that each allocate A = 91 MiB and
  B = 45.5 MiB, then a 2 MiB block that stays alive, then free A and B;
  allocated and reserved after every cycle. Its JSON's "cycles" are
  those rows.
- pytorch123548_<config>: the same loop under expandable_segments:True
  alone, max_split_size_mb:128 alone, and the default (JSON only): the
  growth is the two options' together.

--trace turns a loop's recording (RUN.pickle.gz and RUN.json, as
testdata/diff/pytorch123548) into an ops trace of the conformance
traces' format: its allocations and frees as ops, and after each
cycle's last op PyTorch's figures for that cycle as the expected
memory_stats(), after the last the whole of it (replay --check compares
them).
"""
import gzip
import json
import os
import pickle
import subprocess
import sys

MiB = 1 << 20

EXPANDABLE = "expandable_segments:True"
PATHOLOGY = "max_split_size_mb:128,expandable_segments:True"
LOOP_CYCLES = 101


def stats_row(label):
    import torch

    torch.cuda.synchronize()
    return {
        "label": label,
        "allocated": torch.cuda.memory_allocated(),
        "reserved": torch.cuda.memory_reserved(),
        "peak_allocated": torch.cuda.max_memory_allocated(),
        "peak_reserved": torch.cuda.max_memory_reserved(),
    }


def start_history(stacks):
    import torch

    if stacks:
        torch.cuda.memory._record_memory_history(max_entries=1000000, context="alloc", stacks="python")
    else:
        torch.cuda.memory._record_memory_history(max_entries=1000000, context=None, stacks="python")


def finish(out, name, conf, extra):
    """Dump the snapshot gzipped and the JSON of what PyTorch reported."""
    import torch

    torch.cuda.synchronize()
    plain = os.path.join(out, name + ".pickle")
    torch.cuda.memory._dump_snapshot(plain)
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(plain, "rb") as f, gzip.GzipFile(plain + ".gz", "wb", mtime=0) as g:
        g.write(f.read())
    os.remove(plain)
    report = {"name": name, "torch": torch.__version__, "alloc_conf": conf, "total_memory": torch.cuda.get_device_properties(0).total_memory}
    report.update(extra)
    report["final_stats"] = torch.cuda.memory_stats()
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(report, f)


def gpt_model():
    import torch
    from torch import nn

    d, heads, vocab, ctx = 512, 8, 8192, 256

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            # registration order is the order .cuda() moves them in, as
            # the recording's first allocations show
            self.ln1 = nn.LayerNorm(d)
            self.ln2 = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            h = self.ln1(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            x = x + self.mlp(self.ln2(x))
            return x

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, d)
            self.wpe = nn.Embedding(ctx, d)
            self.blocks = nn.ModuleList([Block() for _ in range(4)])
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx):
            pos = torch.arange(idx.shape[1], device=idx.device)
            x = self.wte(idx) + self.wpe(pos)
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))

    return GPT(), vocab, ctx


def gpt_train(out, name, conf):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    start_history(stacks=True)
    model, vocab, ctx = gpt_model()
    model = model.cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    steps = [stats_row("model")]
    idx = torch.randint(0, vocab, (8, ctx), device="cuda")
    for i in range(3):
        logits = model(idx)
        steps.append(stats_row(f"fwd{i}"))
        loss = F.cross_entropy(logits.view(-1, vocab), idx.view(-1))
        loss.backward()
        steps.append(stats_row(f"bwd{i}"))
        opt.step()
        opt.zero_grad(set_to_none=True)
        steps.append(stats_row(f"step{i}"))
    del logits, loss
    steps.append(stats_row("end"))
    finish(out, name, conf, {"steps": steps})


def gpt_replay(out, name, conf, src):
    """Make the allocations and frees of the recording at src again."""
    import torch

    with open(src, "rb") as f:
        snap = pickle.load(f)  # the ground truth's own file: plain data
    events = snap["device_traces"][0]
    start_history(stacks=False)
    ptrs = {}
    for e in events:
        if e["action"] == "alloc":
            ptrs[e["addr"]] = torch.cuda.caching_allocator_alloc(e["size"], 0, 0)
        elif e["action"] == "free_completed":
            torch.cuda.caching_allocator_delete(ptrs.pop(e["addr"]))
    final = stats_row("end")
    for p in ptrs.values():
        torch.cuda.caching_allocator_delete(p)
    finish(out, name, conf, {"source": os.path.basename(src), "events": len(events), "steps": [final]})


def loop_123548(out, name, conf, snapshot=True):
    import torch

    def empty(nbytes):
        return torch.empty(nbytes, dtype=torch.uint8, device="cuda")

    if snapshot:
        start_history(stacks=False)
    canary = empty(64 * MiB)
    keep, cycles = [], []
    for c in range(LOOP_CYCLES):
        a = empty(91 * MiB)
        b = empty(91 * MiB // 2)
        keep.append(empty(2 * MiB))
        del a, b
        row = stats_row(f"cycle {c}")
        st = torch.cuda.memory_stats()
        row["num_alloc_retries"], row["num_ooms"] = st["num_alloc_retries"], st["num_ooms"]
        row["segments"] = st["segment.all.current"]
        cycles.append(row)
    extra = {"cycles": cycles}
    if snapshot:
        finish(out, name, conf, extra)
        return
    extra.update({"name": name, "torch": torch.__version__, "alloc_conf": conf})
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(extra, f)


def loop_trace(run, out):
    """Write the ops trace of a loop's recording, its cycles the expect rows."""
    with gzip.open(run + ".pickle.gz") as f:
        snap = pickle.load(f)
    with open(run + ".json") as f:
        rec = json.load(f)
    ops, ids = [], {}
    for e in snap["device_traces"][0]:
        if e["action"] == "alloc":
            ids[e["addr"]] = len(ops)  # an id not used before
            ops.append({"op": "alloc", "id": ids[e["addr"]], "size": e["size"]})
        elif e["action"] == "free_completed":
            ops.append({"op": "free", "id": ids.pop(e["addr"])})
    per_cycle = (len(ops) - 1) // len(rec["cycles"])  # after the 64 MiB block
    expect = []
    for c, row in enumerate(rec["cycles"]):
        expect.append({
            "i": per_cycle * (c + 1),
            "allocated_bytes.all.current": row["allocated"],
            "reserved_bytes.all.current": row["reserved"],
            "allocated_bytes.all.peak": row["peak_allocated"],
            "reserved_bytes.all.peak": row["peak_reserved"],
            "segment.all.current": row["segments"],
            "num_alloc_retries": row["num_alloc_retries"],
            "num_ooms": row["num_ooms"],
        })
    expect[-1].update(rec["final_stats"])  # the whole memory_stats() after the last cycle
    trace = {"name": os.path.basename(run), "alloc_conf": rec["alloc_conf"], "memory_fraction": None, "limit_bytes": None,
             "total_memory": rec["total_memory"], "torch": rec["torch"], "ops": ops, "expect": expect}
    with gzip.GzipFile(out, "wb", mtime=0) as g:
        g.write(json.dumps(trace).encode())


RUNS = {
    "gpt_train_default": ("", lambda out, src: gpt_train(out, "gpt_train_default", "")),
    "gpt_train_expandable": (EXPANDABLE, lambda out, src: gpt_train(out, "gpt_train_expandable", EXPANDABLE)),
    "gpt_train_replayed_expandable": (EXPANDABLE, lambda out, src: gpt_replay(out, "gpt_train_replayed_expandable", EXPANDABLE, src)),
    "pytorch123548": (PATHOLOGY, lambda out, src: loop_123548(out, "pytorch123548", PATHOLOGY)),
    "pytorch123548_expandable": (EXPANDABLE, lambda out, src: loop_123548(out, "pytorch123548_expandable", EXPANDABLE, False)),
    "pytorch123548_ms128": ("max_split_size_mb:128", lambda out, src: loop_123548(out, "pytorch123548_ms128", "max_split_size_mb:128", False)),
    "pytorch123548_default": ("", lambda out, src: loop_123548(out, "pytorch123548_default", "", False)),
}


def main():
    if sys.argv[1] == "--child":
        RUNS[sys.argv[2]][1](sys.argv[3], sys.argv[4])
        return
    if sys.argv[1] == "--trace":
        loop_trace(sys.argv[2], sys.argv[3])
        return
    out = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else "testdata/truth/workloads/gpt_train.pickle"
    os.makedirs(out, exist_ok=True)
    status = 0
    for name, (conf, _) in RUNS.items():
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
        rc = subprocess.run([sys.executable, __file__, "--child", name, out, src], env=env).returncode
        print(name, "rc", rc, flush=True)
        status = status or rc
    sys.exit(status)


if __name__ == "__main__":
    main()
