#!/usr/bin/env python3
"""Find, on the GPU, the most indices whose advanced-indexing backward
(index_put_ with accumulate, which sorts the flattened indices with
CUB's radix sort) asks CUB for 1 byte of scratch (its single-tile
sort): for each count the allocations of x[idx].sum().backward() that
are neither the int64 index temporaries nor the gradient, for two
sizes of x's first dimension (the bits sorted).

    python3 scripts/probe_index_sort.py
"""
import torch


def scratch(rows, n):
    x = torch.zeros(rows, 4, device='cuda', requires_grad=True)
    idx = torch.randint(0, rows, (n,), device='cuda')
    r = x[idx]
    torch.cuda.memory._record_memory_history(max_entries=100000)
    r.sum().backward()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    sizes = [e['size'] for e in snap['device_traces'][0] if e['action'] == 'alloc']
    return [s for s in sizes if s not in (8 * n, 16 * n, 4, rows * 16)]


def main():
    for rows in (1024, 50000):
        last, lo, hi = None, 1, 8192
        while lo < hi:  # the first count whose scratch is more than 1 byte
            mid = (lo + hi) // 2
            if scratch(rows, mid) == [1]:
                lo = mid + 1
            else:
                hi = mid
        print(rows, "rows: 1 byte up to", lo - 1, "indices;", lo, "->", scratch(rows, lo), "; 2048 ->", scratch(rows, 2048))


if __name__ == "__main__":
    main()
