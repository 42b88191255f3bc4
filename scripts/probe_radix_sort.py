#!/usr/bin/env python3
"""Measure, on the GPU, CUB's scratch for the radix sort that the backward
of advanced indexing (index_put_ with accumulate) runs on its flattened
int64 indices, past one tile (2305 indices and more): for index tensors
and bool masks of n elements into tensors of several sizes, since PyTorch
sorts only the bits of (numel - 1) // slice, slice the elements after the
indexed dimensions.

Each row: numel slice n scratch | case | the sizes backward allocated, in
order (from torch.cuda.memory._snapshot()'s device_traces). The scratch
is the last allocation of an odd size (CUB's: its parts rounded up to 256
bytes and 255 more); the others are the gradient, nonzero's (for a mask)
and the int64 temporaries.

    python3 scripts/probe_radix_sort.py > testdata/pyrules/radix_sort_probe.txt
"""
import torch


def backward_allocs(x, index):
    r = index(x)
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(max_entries=100000)
    r.sum().backward()
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    del r
    x.grad = None
    return [e['size'] for e in snap['device_traces'][0] if e['action'] == 'alloc']


def row(name, shape, slice_, n, index):
    x = torch.zeros(shape, device='cuda', requires_grad=True)
    allocs = backward_allocs(x, index)
    odd = [a for a in allocs if a % 2 == 1]
    numel = x.numel()
    del x
    print(numel, slice_, n, odd[-1] if odd else None, '|', name, '|', *allocs, flush=True)


def take(rows, n):
    return lambda x: x[torch.randint(0, rows, (n,), device='cuda')]


def take_cols(cols, n):
    return lambda x: x[:, torch.randint(0, cols, (n,), device='cuda')]


def take_pairs(rows, cols, n):
    return lambda x: x[torch.randint(0, rows, (n,), device='cuda'), torch.randint(0, cols, (n,), device='cuda')]


def masked(rows, n):
    def index(x):
        m = torch.zeros(rows, dtype=torch.bool, device='cuda')
        m[torch.randperm(rows, device='cuda')[:n]] = True
        return x[m]
    return index


def sweep():
    ns = list(range(2300, 2313)) + [2335, 2336, 2337, 2338]
    for c in (4608, 9216, 13824, 4608 * 32):
        ns += [c - 1, c, c + 1, c + 2]
    for k in range(12, 25):
        ns += [(1 << k) - 1, 1 << k, (1 << k) + 1, 3 << (k - 1)]
    ns += [10**5, 10**6, 10**7, 12345, 123457, 1234567, 12345678]
    return sorted(set(n for n in ns if 2300 <= n <= 1 << 24))


def main():
    print('#', torch.__version__, torch.version.cuda, torch.cuda.get_device_name(), flush=True)
    for numel in (1 << 20, 256):  # 20 bits (3 passes) and 8 (1 pass)
        for n in sweep():
            row(f'x[idx] x={numel}', (numel,), 1, n, take(numel, n))
    some = (2305, 4608, 4609, 100000, 1 << 20, 1 << 24)
    for numel in (257, 1 << 10, 1 << 16, (1 << 16) + 1, 1 << 24, (1 << 24) + 1):
        for n in some:
            row(f'x[idx] x={numel}', (numel,), 1, n, take(numel, n))
    for n in some:
        row('x[idx] x=(65536,4)', (65536, 4), 4, n, take(65536, n))
        row('x[:,idx] x=(4,65536)', (4, 65536), 1, n, take_cols(65536, n))
        row('x[i,j] x=(1024,1024)', (1024, 1024), 1, n, take_pairs(1024, 1024, n))
        if n <= 1 << 20:
            row('x[mask] x=2^20', (1 << 20,), 1, n, masked(1 << 20, n))
            row('x[mask] x=(2^20,4) mask=(2^20,)', (1 << 20, 4), 4, n, masked(1 << 20, n))
        row('x[mask] x=2^24+1', ((1 << 24) + 1,), 1, n, masked((1 << 24) + 1, n))


if __name__ == '__main__':
    main()
