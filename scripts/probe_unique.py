#!/usr/bin/env python3
"""Measure, on the GPU, what torch.unique, unique_consecutive, randperm and
the repeat_interleave indices allocate, across the sizes where CUB's
kernels change their tiling: the radix sort of one tile (2304 8-byte
items on the H200), DeviceSelect's tiles (unique without counts), the
run-length encoding's (with counts), the int-to-int64 scan of the
inverse, and randperm's switch from int32 to int64 keys (past 30085);
and multinomial's paths not recorded elsewhere (a 1-d input, one row
with replacement, rows too short for topk's multi-block kernel).

Each row: what | n | the allocations and frees of the call, in order
(a SIZE, F SIZE), from torch.cuda.memory._snapshot()'s device_traces.
The values are distinct (an arange, shuffled on the host), so that
unique's count is n.

    python3 scripts/probe_unique.py > testdata/pyrules/unique_probe.txt
"""
import torch


def events(fn):
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(max_entries=100000)
    out = fn()
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    del out
    got = []
    for e in snap['device_traces'][0]:
        if e['action'] == 'alloc':
            got.append(f"a{e['size']}")
        elif e['action'] == 'free_completed':
            got.append(f"F{e['size']}")
    return ' '.join(got)


def row(what, n, fn):
    print(what, '|', n, '|', events(fn), flush=True)


def sizes():
    ns = [1, 2, 5, 100, 1000]
    for edge in (2304, 2560, 3840, 4096, 4608, 5760, 7680, 8192, 8448, 16384, 16896, 30085, 30086, 32768):
        ns += [edge - 1, edge, edge + 1]
    ns += [10**5, 1 << 20, 10**6 + 1, 1 << 22]
    return sorted(set(ns))


def main():
    print('#', torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), flush=True)
    for n in sizes():
        for dt in (torch.int64, torch.float32, torch.int32):
            x = torch.randperm(n).to(dt).cuda()
            row(f'unique {dt}', n, lambda: x.unique())
            row(f'unique inverse counts {dt}', n, lambda: x.unique(return_inverse=True, return_counts=True))
            if dt == torch.int64:
                row(f'unique inverse {dt}', n, lambda: x.unique(return_inverse=True))
                row(f'unique counts {dt}', n, lambda: x.unique(return_counts=True))
                row(f'unique_consecutive {dt}', n, lambda: torch.unique_consecutive(x))
                row(f'unique_consecutive inverse counts {dt}', n, lambda: torch.unique_consecutive(x, return_inverse=True, return_counts=True))
            del x
        row('randperm', n, lambda: torch.randperm(n, device='cuda'))
        counts = torch.ones(n, dtype=torch.int64, device='cuda')
        counts32 = counts.int()
        row('repeat_interleave counts', n, lambda: torch.repeat_interleave(counts))
        row('repeat_interleave counts int32', n, lambda: torch.repeat_interleave(counts32))
        del counts, counts32
    for shape, k, repl in (((50000,), 8, False), ((50000,), 4, True), ((1, 50000), 4, True), ((64, 1000), 8, False), ((8, 50304), 1, True)):
        p = torch.rand(shape, device='cuda')
        row(f'multinomial {list(shape)} {k} replacement={repl}', p.numel(), lambda: torch.multinomial(p, k, replacement=repl))
        del p


if __name__ == '__main__':
    main()
