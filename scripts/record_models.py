#!/usr/bin/env python3
"""Record what real PyTorch reports for small models, step by step.

    python3 scripts/record_models.py OUTDIR

Each experiment runs in its own process and writes OUTDIR/NAME.jsonl: one
JSON object per step with the step's Python code, allocated, reserved,
the peaks, NVML's figure for this process (context + reserved + whatever
libraries load) and cuMemGetInfo. "mlp_adamw" also dumps its memory
snapshot (torch.cuda.memory._dump_snapshot) to OUTDIR/mlp_adamw.pickle,
as pytorch.org/memory_viz reads it.

Experiments:
- context: what the CUDA context costs at init, after the first kernel
  (a fill), and after the first matrix product (cuBLAS loads).
- cublas_workspace: allocated before and after the first matmul of each
  dtype, and on a second stream.
- mlp_adamw: Linear(512,2048)-GELU-Linear(2048,512), AdamW, 3 steps.
- block_grad: a transformer-style MLP block made of Linear/GELU/sum:
  forward with grad, backward, forward under no_grad, total_loss leak.
- two_streams: allocations on the default stream and a side stream (a
  freed block serves only its own stream), a record_stream'd free, 600
  random allocations and frees on both, an empty_cache midway; dumps
  OUTDIR/two_streams.pickle.
- wrapped_streams: the same with a 400-entry history, which wraps: the
  snapshot's history starts late; dumps OUTDIR/wrapped_streams.pickle.
- expandable_streams: the same under expandable_segments:True (each
  stream maps pages into ranges of its own); dumps
  OUTDIR/expandable_streams.pickle.
"""
import json
import os
import subprocess
import sys


def nvml_proc_used():
    try:
        import pynvml
    except ImportError:
        return None
    pynvml.nvmlInit()
    h = pynvml.nvmlDeviceGetHandleByIndex(0)
    for p in pynvml.nvmlDeviceGetComputeRunningProcesses(h):
        if p.pid == os.getpid():
            return p.usedGpuMemory
    return None


class Recorder:
    def __init__(self, out, name):
        self.f = open(os.path.join(out, name + ".jsonl"), "w")

    def step(self, code):
        import torch

        torch.cuda.synchronize()
        free, total = torch.cuda.mem_get_info()
        row = {
            "step": code,
            "allocated": torch.cuda.memory_allocated(),
            "reserved": torch.cuda.memory_reserved(),
            "max_allocated": torch.cuda.max_memory_allocated(),
            "max_reserved": torch.cuda.max_memory_reserved(),
            "nvml_proc_used": nvml_proc_used(),
            "cu_free": free,
            "cu_total": total,
        }
        self.f.write(json.dumps(row) + "\n")
        self.f.flush()


def context(out):
    import torch

    r = Recorder(out, "context")
    torch.cuda.init()
    x = torch.empty(1, device="cuda")
    r.step("x = torch.empty(1, device='cuda')  # context, no kernel")
    x.fill_(1)
    r.step("x.fill_(1)  # first kernel")
    a = torch.ones(64, 64, device="cuda")
    r.step("a = torch.ones(64, 64, device='cuda')")
    b = a @ a
    r.step("b = a @ a  # first matmul: cuBLAS")
    del b
    r.step("del b")


def cublas_workspace(out):
    import torch

    r = Recorder(out, "cublas_workspace")
    a = torch.ones(256, 256, device="cuda")
    r.step("a = torch.ones(256, 256, device='cuda')")
    b = a @ a
    r.step("b = a @ a  # float32")
    h = a.half()
    r.step("h = a.half()")
    hh = h @ h
    r.step("hh = h @ h  # float16")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        c = a @ a
    torch.cuda.synchronize()
    r.step("c = a @ a  # on a second stream")
    l = torch.nn.Linear(256, 256).cuda()
    r.step("l = torch.nn.Linear(256, 256).cuda()")
    y = l(a)
    r.step("y = l(a)  # addmm (cuBLASLt)")
    del b, hh, c, y
    r.step("del b, hh, c, y")


def mlp_adamw(out):
    import torch

    torch.manual_seed(0)
    r = Recorder(out, "mlp_adamw")
    torch.cuda.memory._record_memory_history(max_entries=100000, context=None, stacks="python")
    model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 512)).cuda()
    r.step("model = Sequential(Linear(512,2048), GELU(), Linear(2048,512)).cuda()")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    r.step("opt = torch.optim.AdamW(model.parameters(), lr=1e-3)")
    x = torch.randn(64, 512, device="cuda")
    r.step("x = torch.randn(64, 512, device='cuda')")
    for i in range(3):
        y = model(x)
        r.step(f"y = model(x)  # step {i}")
        loss = y.square().mean()
        r.step(f"loss = y.square().mean()  # step {i}")
        loss.backward()
        r.step(f"loss.backward()  # step {i}")
        opt.step()
        r.step(f"opt.step()  # step {i}")
        opt.zero_grad(set_to_none=True)
        r.step(f"opt.zero_grad(set_to_none=True)  # step {i}")
        del y, loss
        r.step(f"del y, loss  # step {i}")
    torch.cuda.memory._dump_snapshot(os.path.join(out, "mlp_adamw.pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)


def block_grad(out):
    import torch

    torch.manual_seed(0)
    r = Recorder(out, "block_grad")
    up = torch.nn.Linear(1024, 4096, bias=False).cuda()
    down = torch.nn.Linear(4096, 1024, bias=False).cuda()
    r.step("up, down = Linear(1024,4096,bias=False).cuda(), Linear(4096,1024,bias=False).cuda()")
    x = torch.randn(256, 1024, device="cuda", requires_grad=True)
    r.step("x = torch.randn(256, 1024, device='cuda', requires_grad=True)")
    h = torch.nn.functional.gelu(up(x))
    r.step("h = gelu(up(x))")
    y = down(h) + x
    r.step("y = down(h) + x")
    s = y.sum()
    r.step("s = y.sum()")
    s.backward()
    r.step("s.backward()")
    del h, y, s
    r.step("del h, y, s")
    with torch.no_grad():
        y = down(torch.nn.functional.gelu(up(x))) + x
    r.step("with no_grad: y = down(gelu(up(x))) + x")
    del y
    r.step("del y")
    total = 0
    for i in range(3):
        loss = (down(torch.nn.functional.gelu(up(x))) + x).mean()
        total = total + loss
        r.step(f"total_loss = total_loss + loss  # iteration {i}")
    del total, loss
    r.step("del total_loss, loss")
    torch.cuda.empty_cache()
    r.step("torch.cuda.empty_cache()")


def streams_mix(out, name, max_entries=100000):
    """Two streams' allocations and frees; dumps OUTDIR/NAME.pickle."""
    import random

    import torch

    random.seed(3)
    torch.cuda.memory._record_memory_history(max_entries=max_entries, context=None, stacks="python")
    side = torch.cuda.Stream()

    def empty(nbytes, stream=None):
        with torch.cuda.stream(stream or torch.cuda.current_stream()):
            return torch.empty(nbytes, dtype=torch.uint8, device="cuda")

    a = empty(64 << 20)
    b = empty(64 << 20, side)
    del b
    c = empty(64 << 20)  # b's block is side's: a new segment
    d = empty(32 << 20, side)  # b's segment, split
    x = empty(1 << 20)
    y = empty(1 << 20, side)  # the small pool is per stream too
    e = empty(8 << 20)
    e.record_stream(side)
    side_work = empty(1 << 20, side)
    with torch.cuda.stream(side):
        side_work.fill_(1)
    del e  # freed once side's work is done
    torch.cuda.synchronize()
    f = empty(8 << 20)
    live = [a, c, d, x, y, f, side_work]
    for i in range(600):
        if i == 300:
            torch.cuda.empty_cache()
        if live and random.random() < 0.45:
            live.pop(random.randrange(len(live)))
            continue
        size = random.choice([random.randrange(1, 1 << 20), random.randrange(1 << 20, 48 << 20)])
        live.append(empty(size, random.choice([None, side])))
    torch.cuda.synchronize()
    torch.cuda.memory._dump_snapshot(os.path.join(out, name + ".pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)


def two_streams(out):
    streams_mix(out, "two_streams")


def wrapped_streams(out):
    streams_mix(out, "wrapped_streams", max_entries=400)  # the ring buffer wraps


def expandable_streams(out):
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"  # before CUDA starts
    streams_mix(out, "expandable_streams")


EXPERIMENTS = {"context": context, "cublas_workspace": cublas_workspace, "mlp_adamw": mlp_adamw, "block_grad": block_grad, "two_streams": two_streams, "expandable_streams": expandable_streams, "wrapped_streams": wrapped_streams}


def main():
    if sys.argv[1] == "--child":
        EXPERIMENTS[sys.argv[2]](sys.argv[3])
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in EXPERIMENTS:
        rc = subprocess.run([sys.executable, __file__, "--child", name, out]).returncode
        print(name, "rc", rc, flush=True)


if __name__ == "__main__":
    main()
