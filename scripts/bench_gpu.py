"""Time gpumemrepl's real-GPU backend beside PyTorch, in one run on one GPU.

Usage (on the GPU machine, with the binary built elsewhere):

    python3 scripts/bench_gpu.py bin/gpumemrepl path/to/perf_trace.json.gz [OUT.json]

Both sides run the same steps, REPS times: `a = zeros 1 GiB` on cuda,
`b = a.to cpu`, `c = b.to cuda`, then everything deleted (the cached
blocks serve the next round, in both allocators). Each side times a step
from its start until the GPU is done (PyTorch: synchronize before and
after; gpumemrepl: its per-step elapsed_ns, whose fills and copies wait
for the device). Medians are printed. Then the 200k-op trace is replayed
through the real device by `gpumemrepl replay --device cuda --time` and by
PyTorch's Python-driven allocator loop (caching_allocator_alloc/delete),
both with the cache warm (one untimed run first): once without the
trace's empty_cache ops (the allocators' own cost) and once with them
(then both spend their time in the driver's cudaMalloc and cudaFree).
"""

import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time

import torch

REPS = 9
STEPS = ["zeros 1 GiB cuda", ".to cpu 1 GiB", ".to cuda 1 GiB"]


def torch_steps():
    torch.zeros(1, device="cuda")  # context and kernels loaded first
    times = {s: [] for s in STEPS}
    for _ in range(REPS):
        for name, f in [
            (STEPS[0], lambda: torch.zeros([256, 1024, 1024], device="cuda")),
            (STEPS[1], lambda: a.to("cpu")),
            (STEPS[2], lambda: b.to("cuda")),
        ]:
            torch.cuda.synchronize()
            t = time.perf_counter()
            r = f()
            torch.cuda.synchronize()
            times[name].append(time.perf_counter() - t)
            if name == STEPS[0]:
                a = r
            elif name == STEPS[1]:
                b = r
            else:
                c = r
        del a, b, c
    return {s: statistics.median(v) for s, v in times.items()}


def ours_steps(binary):
    lines = ["w = zeros 1 cuda"]
    for _ in range(REPS):
        lines += ["a = zeros 256x1024x1024 cuda", "b = a.to cpu", "c = b.to cuda", "del a, b, c"]
    with tempfile.NamedTemporaryFile("w", suffix=".gpumem", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([binary, "run", "--device", "cuda", "--json", f.name], check=True, capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    times = {s: [] for s in STEPS}
    for r in rows:
        for src, name in [("zeros 256x", STEPS[0]), ("a.to cpu", STEPS[1]), ("b.to cuda", STEPS[2])]:
            if src in r["source"]:
                times[name].append(r["elapsed_ns"] / 1e9)
    return {s: statistics.median(v) for s, v in times.items()}


def torch_replay(path, keep_empty_cache, runs=3):
    """Replays the ops through PyTorch's allocator from Python; the first
    run is untimed, so the cache is warm, as for gpumemrepl --time."""
    with gzip.open(path) if path.endswith(".gz") else open(path) as f:
        ops = json.load(f)["ops"]
    if not keep_empty_cache:
        ops = [op for op in ops if op["op"] != "empty_cache"]
    alloc, free = torch.cuda.caching_allocator_alloc, torch.cuda.caching_allocator_delete
    per_op = []
    for run in range(runs + 1):
        live = {}
        t = time.perf_counter()
        for op in ops:
            if op["op"] == "alloc":
                try:
                    live[op["id"]] = alloc(op["size"])
                except torch.OutOfMemoryError:
                    pass
            elif op["op"] == "free":
                p = live.pop(op["id"], None)
                if p is not None:
                    free(p)
            else:
                torch.cuda.empty_cache()
        if run > 0:
            per_op.append((time.perf_counter() - t) / len(ops) * 1e9)
        for p in live.values():
            free(p)
    torch.cuda.empty_cache()
    return statistics.median(per_op)


def ours_replay(binary, path, keep_empty_cache):
    args = [binary, "replay", "--device", "cuda", "--time", path]
    if not keep_empty_cache:
        args.append("--no-empty-cache")
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    # "PATH: N ops, X ns/op (median of R runs)"
    return float(out.split(" ops, ")[1].split(" ns/op")[0])


def main():
    binary, trace = sys.argv[1], sys.argv[2]
    ours, theirs = ours_steps(binary), torch_steps()
    rows = [(s, theirs[s] * 1e3, ours[s] * 1e3, "ms") for s in STEPS]
    rows.append(("replay 200k ops, its empty_cache ops left out", torch_replay(trace, False), ours_replay(binary, trace, False), "ns/op"))
    rows.append(("replay 200k ops, with its 2,068 empty_cache ops", torch_replay(trace, True), ours_replay(binary, trace, True), "ns/op"))
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, median of {REPS} rounds")
    print("| step | PyTorch | gpumemrepl | gpumemrepl / PyTorch |")
    print("|---|---|---|---|")
    for name, t, o, unit in rows:
        print(f"| {name} | {t:.2f} {unit} | {o:.2f} {unit} | {o / t:.2f}x |")
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump([{"step": n, "pytorch": t, "gpumemrepl": o, "unit": u} for n, t, o, u in rows], f, indent=1)


if __name__ == "__main__":
    main()
