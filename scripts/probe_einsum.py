#!/usr/bin/env python3
"""Print, for torch.einsum equations on the GPU, the autograd graph its
result carries (node names, depth first) and the opt_einsum path torch
passes for three or more operands; the memory those take is in
testdata/pyrules/ops_einsum_forms.py's recording.

    python3 scripts/probe_einsum.py
"""
import torch


def graph(fn, depth=0, seen=None):
    seen = set() if seen is None else seen
    if fn is None or id(fn) in seen:
        return
    seen.add(id(fn))
    print("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        graph(nxt, depth + 1, seen)


def main():
    g = lambda *s: torch.rand(*s, device='cuda', requires_grad=True)
    cases = [
        ('ii->i', g(8, 8)), ('ii', g(8, 8)), ('bii->bi', g(2, 8, 8)),
        ('ij->j', g(8, 4)), ('ij,ij->j', g(8, 4), g(8, 4)),
        ('ij,jk->ki', g(8, 4), g(4, 2)), ('ij,ji->', g(8, 4), g(4, 8)),
        ('i,j->ij', g(8), g(4)), ('bij,jkb->ik', g(2, 8, 4), g(4, 3, 2)),
        ('...ij,...jk->...ik', g(2, 8, 4), g(2, 4, 3)), ('b...->...', g(2, 8, 4)),
        ('ij,jk,kl->il', g(64, 64), g(64, 32), g(32, 16)),
        ('i,ij,j->', g(64), g(64, 64), g(64)),
    ]
    import opt_einsum
    strategy = torch.backends.opt_einsum.strategy
    for eq, *ops in cases:
        print(eq)
        graph(torch.einsum(eq, *ops).grad_fn, 1)
        if len(ops) > 2:
            print("  path", opt_einsum.contract_path(eq, *ops, optimize=strategy)[0])


if __name__ == "__main__":
    main()
