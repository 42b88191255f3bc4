#!/usr/bin/env python3
"""Probe facts about PyTorch and the CUDA driver that gpumemrepl relies on.

    python3 scripts/probe_torch.py OUTDIR

Writes OUTDIR/probe.json with:
- "driver_addresses": cuMemAlloc/cuMemFree through libcuda directly (no
  PyTorch), a fixed sequence and a random one, each with the address the
  driver returned: the pattern the simulated device reproduces.
- "config_errors": the exception type and text PyTorch gives for bad
  PYTORCH_CUDA_ALLOC_CONF strings (set at run time).
- "summary": memory_summary() after one 1000-byte allocation.
- "oom": str() of an out-of-memory error under a fraction limit.
- "stats_keys": the sorted memory_stats() keys.
"""
import ctypes
import json
import os
import random
import subprocess
import sys

MiB = 1 << 20


def driver_addresses():
    cu = ctypes.CDLL("libcuda.so.1")
    assert cu.cuInit(0) == 0
    dev = ctypes.c_int()
    assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
    ctx = ctypes.c_void_p()
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0
    log = []
    live = {}

    def alloc(key, size):
        p = ctypes.c_uint64()
        rc = cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size))
        log.append(["alloc", key, size, p.value if rc == 0 else None, rc])
        if rc == 0:
            live[key] = p.value

    def free(key):
        p = live.pop(key)
        rc = cu.cuMemFree_v2(ctypes.c_uint64(p))
        log.append(["free", key, 0, p, rc])

    # fixed: small then large, then reuse after frees
    for i in range(8):
        alloc(f"s{i}", 2 * MiB)
    for i in range(8):
        alloc(f"l{i}", 20 * MiB)
    for i, sz in enumerate([12 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB, 100 * MiB, 30 * MiB]):
        alloc(f"b{i}", sz)
    for k in ["s2", "s3", "l1", "l5", "b1", "b3"]:
        free(k)
    for i, sz in enumerate([2 * MiB, 2 * MiB, 20 * MiB, 64 * MiB, 40 * MiB, 1024 * MiB, 512 * MiB, 2 * MiB]):
        alloc(f"r{i}", sz)
    for k in list(live):
        free(k)
    fixed = log[:]
    log.clear()
    rng = random.Random(7)
    sizes = [2 * MiB] * 6 + [20 * MiB] * 4 + [12 * MiB, 22 * MiB, 40 * MiB, 64 * MiB, 130 * MiB, 300 * MiB, 700 * MiB, 1200 * MiB]
    n = 0
    for step in range(1500):
        if not live or rng.random() < 0.55:
            alloc(f"x{n}", rng.choice(sizes) if rng.random() < 0.8 else 2 * MiB * rng.randint(5, 600))
            n += 1
        else:
            free(rng.choice(list(live)))
    for k in list(live):
        free(k)
    return {"fixed": fixed, "random": log}


def config_errors():
    import torch

    torch.cuda.init()
    out = {}
    for s in ["bogus:1", "max_split_size_mb:5", "max_split_size_mb:abc",
              "garbage_collection_threshold:1.5", "expandable_segments:true",
              "roundup_power2_divisions:3", "roundup_power2_divisions:[256:3]",
              "roundup_power2_divisions:[300:2]", "roundup_power2_divisions:[256:2",
              "max_split_size_mb=40", "large_segment_size_mb:8", "max_non_split_rounding_mb:10",
              "backend:foo", "per_process_memory_fraction:2", "pinned_num_register_threads:3",
              "max_split_size_mb:40.5", "max_split_size_mb", "max_split_size_mb:"]:
        try:
            torch._C._accelerator_setAllocatorSettings(s)
            out[s] = ["ok", ""]
        except Exception as e:  # we record whatever it raises
            out[s] = [type(e).__name__, str(e).split("\n")[0]]
    torch._C._accelerator_setAllocatorSettings("")
    return out


def torch_facts():
    import torch

    x = torch.cuda.caching_allocator_alloc(1000)
    summary = torch.cuda.memory_summary()
    torch.cuda.caching_allocator_delete(x)
    torch.cuda.empty_cache()
    keys = sorted(torch.cuda.memory_stats().keys())
    snap = torch.cuda.memory._snapshot()
    settings = snap.get("allocator_settings")
    torch.cuda.set_per_process_memory_fraction(0.01)
    try:
        torch.cuda.caching_allocator_alloc(2 << 30)
        oom = None
    except torch.OutOfMemoryError as e:
        oom = str(e)
    torch.cuda.memory._record_memory_history(max_entries=1000, context=None, stacks="python")
    y = torch.cuda.caching_allocator_alloc(5000)
    torch.cuda.caching_allocator_delete(y)
    snap2 = torch.cuda.memory._snapshot()
    trace_keys = [sorted(e.keys()) for e in snap2["device_traces"][0][:3]]
    return {"summary": summary, "stats_keys": keys, "allocator_settings": settings,
            "oom": oom, "trace_keys": trace_keys,
            "max_split_size_default": torch.cuda.memory_stats()["max_split_size"]}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if len(sys.argv) > 2 and sys.argv[2] == "--driver":
        json.dump(driver_addresses(), open(os.path.join(out, "driver.json"), "w"))
        return
    subprocess.run([sys.executable, __file__, out, "--driver"], check=True)
    res = {"driver_addresses": json.load(open(os.path.join(out, "driver.json")))}
    os.remove(os.path.join(out, "driver.json"))
    res.update(torch_facts())
    res["config_errors"] = config_errors()
    with open(os.path.join(out, "probe.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)


if __name__ == "__main__":
    main()
