#!/usr/bin/env python3
"""Print the allocator events of sort, topk, nonzero, any and all over many
sizes on the GPU, the table their memory rules are read from (CUB's
scratch by element count and dimension length; testdata/pyrules/
ops_sort*.py and ops_mask.py record the same ops step by step).

    python3 scripts/probe_sort.py > testdata/pyrules/sort_probe.txt

For each probe: its label and statement, then every allocator event of
the statement (alloc, free_requested, ... with the block's size), from
torch.cuda.memory._record_memory_history.
"""
import torch

from probe_ops import events

PROBES = []
for n in [1, 2, 100, 4096, 4097, 8192, 12288, 16384, 65536, 65537, 100000, 1 << 20, 1 << 22, 10000000]:
    PROBES.append((f"nonzero of {n} true", f"m = torch.ones({n}, dtype=torch.bool, device='cuda')", "r = m.nonzero()"))
for n in [4096, 1 << 20]:
    PROBES.append((f"nonzero of {n} false", f"m = torch.zeros({n}, dtype=torch.bool, device='cuda')", "r = m.nonzero()"))
    PROBES.append((f"nonzero of {n} floats", f"m = torch.ones({n}, device='cuda')", "r = m.nonzero()"))
    PROBES.append((f"nonzero of {n} int64", f"m = torch.ones({n}, dtype=torch.int64, device='cuda')", "r = m.nonzero()"))
    PROBES.append((f"nonzero of {n} 3-d", f"m = torch.ones({n} // 64, 8, 8, dtype=torch.bool, device='cuda')", "r = m.nonzero()"))
    PROBES.append((f"nonzero of {n} transposed", f"m = torch.ones({n} // 64, 64, dtype=torch.bool, device='cuda').t()", "r = m.nonzero()"))
for n in [100, 4097, 5000, 8192, 16384, 65536, 100000, 262144, 1 << 20, 1 << 22, 10000000]:
    PROBES.append((f"sort of {n} float32", f"x = torch.rand({n}, device='cuda')", "r = x.sort()"))
for dt in ["float16", "bfloat16", "float64", "int64", "int32", "uint8", "int16"]:
    PROBES.append((f"sort of 2^20 {dt}", f"x = (torch.rand(1 << 20, device='cuda') * 100).to(torch.{dt})", "r = x.sort()"))
for shape, dim in [((2, 8192), 1), ((16, 65536), 1), ((3, 5000), 1), ((1000, 5000), 1), ((8192, 2), 0), ((5000, 16), 0), ((4, 4097, 3), 1), ((64, 4096), 1), ((4096, 64), 0), ((4096, 4096), 1), ((2, 1 << 20), 1), ((100, 100), 1), ((100000, 4), 1), ((4, 100000), 0)]:
    PROBES.append((f"sort of {shape} along {dim}", f"x = torch.rand{shape}.cuda()", f"r = x.sort({dim})"))
PROBES.append(("sort stable of (1024, 1024)", "x = torch.rand(1024, 1024, device='cuda')", "r = x.sort(1, stable=True)"))
PROBES.append(("sort of a transposed (4096, 64) along 1", "x = torch.rand(64, 4096, device='cuda').t()", "r = x.sort(1)"))
PROBES.append(("sort of a transposed (64, 8192) along 1", "x = torch.rand(8192, 64, device='cuda').t()", "r = x.sort(1)"))
PROBES.append(("sort of a slice (16, 8192) along 1", "x = torch.rand(16, 10000, device='cuda')[:, :8192]", "r = x.sort(1)"))
PROBES.append(("argsort of 2^20", "x = torch.rand(1 << 20, device='cuda')", "r = x.argsort()"))
PROBES.append(("median of 2^20", "x = torch.rand(1 << 20, device='cuda')", "r = x.median()"))
PROBES.append(("median of 4097", "x = torch.rand(4097, device='cuda')", "r = x.median()"))
PROBES.append(("median of 100", "x = torch.rand(100, device='cuda')", "r = x.median()"))
PROBES.append(("nanmedian of 100", "x = torch.rand(100, device='cuda')", "r = x.nanmedian()"))
for shape, k, dim in [((1, 1 << 20), 16, 1), ((1024, 1024), 16, 1), ((1024, 1024), 1, 1), ((1024, 1024), 512, 1), ((1024, 1024), 1024, 1), ((64, 4096), 16, 1), ((16, 100), 5, 1), ((1, 1000), 10, 1), ((1000,), 10, 0), ((4096, 4096), 64, 1), ((100000,), 100, 0), ((8, 100000), 100, 1), ((1024, 1024), 16, 0), ((256, 256), 8, 1), ((4096, 32), 4, 1), ((32, 4096), 4, 0), ((1 << 20,), 1, 0), ((1 << 20,), 4096, 0), ((10000000,), 10, 0), ((2, 3), 2, 1)]:
    PROBES.append((f"topk {k} of {shape} along {dim}", f"x = torch.rand{shape if len(shape) > 1 else '(' + str(shape[0]) + ')'}.cuda()", f"r = x.topk({k}, {dim})"))
PROBES.append(("topk 16 unsorted of (1024, 1024)", "x = torch.rand(1024, 1024, device='cuda')", "r = x.topk(16, sorted=False)"))
PROBES.append(("topk 16 smallest of (1024, 1024)", "x = torch.rand(1024, 1024, device='cuda')", "r = x.topk(16, largest=False)"))
PROBES.append(("topk 16 of float16 (1024, 1024)", "x = torch.rand(1024, 1024, device='cuda', dtype=torch.float16)", "r = x.topk(16)"))
PROBES.append(("topk 16 of int64 (1024, 1024)", "x = torch.randint(0, 1000, (1024, 1024), device='cuda')", "r = x.topk(16)"))
PROBES.append(("topk 16 unsorted of (1, 2^20)", "x = torch.rand(1 << 20, device='cuda')", "r = x.topk(16, sorted=False)"))
for n in [512, 4096, 4097, 65536, 1 << 20, 1 << 24]:
    PROBES.append((f"all of {n} bools", f"m = torch.ones({n}, dtype=torch.bool, device='cuda')", "r = m.all()"))
    PROBES.append((f"any of {n} floats", f"m = torch.ones({n}, device='cuda')", "r = m.any()"))
PROBES.append(("any along 0 of (1024, 1024) bools", "m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda')", "r = m.any(0)"))
PROBES.append(("all along 1 of (16, 65536) bools", "m = torch.ones(16, 65536, dtype=torch.bool, device='cuda')", "r = m.all(1)"))
PROBES.append(("mask index of (1024, 1024) by ones", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda')", "r = x[m]"))
PROBES.append(("mask index of rows by 1024 ones", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, dtype=torch.bool, device='cuda')", "r = x[m]"))
PROBES.append(("mask setitem number", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda')", "x[m] = 0.5"))
PROBES.append(("mask setitem 0-d tensor", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda'); v = torch.tensor(0.5, device='cuda')", "x[m] = v"))
PROBES.append(("mask setitem tensor of values", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda'); v = torch.rand(1 << 20, device='cuda')", "x[m] = v"))
PROBES.append(("mask setitem rows number", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, dtype=torch.bool, device='cuda')", "x[m] = 0.5"))
PROBES.append(("masked_select broadcast", "x = torch.rand(1024, 1024, device='cuda'); m = torch.ones(1024, dtype=torch.bool, device='cuda')", "r = torch.masked_select(x, m)"))
PROBES.append(("masked_select mask broadcast x", "x = torch.rand(1024, device='cuda'); m = torch.ones(1024, 1024, dtype=torch.bool, device='cuda')", "r = torch.masked_select(x, m)"))


def main():
    torch.cuda.init()
    print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), torch.cuda.get_device_properties(0).multi_processor_count, "SMs")
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 22)
    for label, setup, stmt in PROBES:
        names = {"torch": torch}
        try:
            exec(setup, names)
            torch.cuda.synchronize()
            _, seen = events(0)
            exec(stmt, names)
            torch.cuda.synchronize()
            evs, _ = events(seen)
        except Exception as e:  # noqa: BLE001 (a probe that fails says why and the rest go on)
            print(f"{label}: {stmt}\n    error {type(e).__name__}: {e}")
            names.clear()
            torch.cuda.empty_cache()
            continue
        print(f"{label}: {stmt}")
        print("    " + " ".join(f"{a[0] if a != 'free_completed' else 'F'}{s}" for a, s in evs if a in ("alloc", "free_completed")))
        names.clear()
        torch.cuda.memory._record_memory_history(enabled=None)
        torch.cuda.empty_cache()
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 22)


if __name__ == "__main__":
    main()
