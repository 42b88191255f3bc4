#!/usr/bin/env python3
"""Probe the scratch CUB's scan takes in masked_scatter_ (masked_select's
backward: an exclusive sum of the mask into int64 offsets) by the mask's
element count, and beside it a 1-d int64 cumsum's, on the GPU:
the first count at which each grows past its scratch for one count
fewer, up to 2^22, then a spread of counts.

    python3 scripts/probe_mask_scan.py > testdata/pyrules/mask_scan_probe.txt

One line a probe: the op, the count n and the sizes allocated during the
op, in order (masked_scatter_ of n floats under an all-true mask of n
elements: the int64 offsets (8n), then the scan's scratch; cumsum of n
int64: the output (8n), then the scratch).
"""
import random

import torch

MARK = 1 << 29  # a marker allocation's size, plus a probe's number
count = 0


def allocs(fn):
    """The sizes allocated while fn runs, after a marker allocation."""
    global count
    count += 1
    torch.cuda.synchronize()
    mark = torch.empty(MARK + count, dtype=torch.uint8, device='cuda')
    del mark
    fn()
    torch.cuda.synchronize()
    trace = torch.cuda.memory._snapshot()['device_traces'][0]
    at = max(i for i, e in enumerate(trace) if e['action'] == 'alloc' and e['size'] == MARK + count)
    return [e['size'] for e in trace[at + 1:] if e['action'] == 'alloc']


def scatter(n):
    z = torch.zeros(n, device='cuda')
    m = torch.ones(n, dtype=torch.bool, device='cuda')
    src = torch.zeros(n, device='cuda')
    return allocs(lambda: z.masked_scatter_(m, src))


def cumsum(n):
    x = torch.ones(n, dtype=torch.int64, device='cuda')
    return allocs(lambda: torch.cumsum(x, 0))


def scratch(sizes, n):
    return [s for s in sizes if s != 8 * n]


def growth(probe, lo, hi):
    """The first count in (lo, hi] whose scratch is more than lo's."""
    base = scratch(probe(lo), lo)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if scratch(probe(mid), mid) == base:
            lo = mid
        else:
            hi = mid
    return hi


def main():
    torch.cuda.memory._record_memory_history(enabled='all', context=None, stacks='python', max_entries=4096)
    random.seed(1)
    for name, probe in (('masked_scatter_', scatter), ('cumsum_int64', cumsum)):
        ns = [1, 2, 100, 1024, 4096, 10000, 65536, 100000, 1 << 20, 4 << 20]
        at = 1
        for _ in range(4):
            at = growth(probe, at, 1 << 22)
            ns += [at - 1, at]
        ns += [random.randint(1, 1 << 22) for _ in range(40)]
        for n in sorted(set(ns)):
            print(name, n, *probe(n))
    torch.cuda.memory._record_memory_history(enabled=None)


if __name__ == '__main__':
    main()
