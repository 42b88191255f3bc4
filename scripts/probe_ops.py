#!/usr/bin/env python3
"""Print what PyTorch's CUDA caching allocator does for each of a few ops,
forward and backward: the facts the op table's memory rules need
(testdata/pyrules/ops_*.py record the same ops step by step).

    python3 scripts/probe_ops.py

For each probe: its label, then every allocator event of its statement
(alloc, free_requested, ... with the block's size), from
torch.cuda.memory._record_memory_history, and the bytes allocated after.
"""
import torch

N = 1 << 20  # 4 MiB of float32

# (label, setup, statement): setup runs first, unrecorded, in the same names.
PROBES = [
    ("softmax backward, broadcast grad", "x = torch.rand(1024, 1024, device='cuda', requires_grad=True); y = x.softmax(-1)", "y.sum().backward()"),
    ("softmax backward, dense grad", "x = torch.rand(1024, 1024, device='cuda', requires_grad=True); y = x.softmax(-1); g = torch.ones_like(y)", "y.backward(g)"),
    ("log_softmax backward, dense grad", "x = torch.rand(1024, 1024, device='cuda', requires_grad=True); y = x.log_softmax(-1); g = torch.ones_like(y)", "y.backward(g)"),
    ("std, 1 Mi elements", "x = torch.rand(N, device='cuda')", "s = x.std()"),
    ("std, 64 Mi elements", "x = torch.rand(64 * N, device='cuda')", "s = x.std()"),
    ("max, 64 Mi elements", "x = torch.rand(64 * N, device='cuda')", "s = x.max()"),
    ("argmax, 64 Mi elements", "x = torch.rand(64 * N, device='cuda')", "s = x.argmax()"),
    ("norm, 64 Mi elements", "x = torch.rand(64 * N, device='cuda')", "s = x.norm()"),
    ("cumsum, 64 Mi elements", "x = torch.rand(64 * N, device='cuda')", "s = x.cumsum(0)"),
    ("max(dim) of 1024x1024", "x = torch.rand(1024, 1024, device='cuda')", "s = x.max(dim=1)"),
    ("copy_ from host float64", "x = torch.zeros(N, device='cuda'); h = torch.ones(N, dtype=torch.float64)", "x.copy_(h)"),
    ("copy_ from cuda float16", "x = torch.zeros(N, device='cuda'); h = torch.ones(N, dtype=torch.float16, device='cuda')", "x.copy_(h)"),
    ("clamp backward", "x = torch.rand(N, device='cuda', requires_grad=True); y = x.clamp(0.25, 0.75); g = torch.ones_like(y)", "y.backward(g)"),
    ("where backward", "x = torch.rand(N, device='cuda', requires_grad=True); w = torch.rand(N, device='cuda', requires_grad=True); y = torch.where(x > 0.5, x, w); g = torch.ones_like(y)", "y.backward(g)"),
    ("pow(3) backward", "x = torch.rand(N, device='cuda', requires_grad=True); y = x.pow(3); g = torch.ones_like(y)", "y.backward(g)"),
    ("narrow backward", "x = torch.rand(1024, 1024, device='cuda', requires_grad=True); y = x.narrow(0, 256, 512); g = torch.ones_like(y)", "y.backward(g)"),
    ("eye", "", "e = torch.eye(1024, device='cuda')"),
    ("linspace", "", "e = torch.linspace(0, 1, N, device='cuda')"),
    ("randint", "", "e = torch.randint(0, 10, (N,), device='cuda')"),
    ("tensor of a nested list", "", "e = torch.tensor([[0.5] * 1024] * 1024, device='cuda')"),
]


def events(seen):
    """The allocator events of cuda:0 since seen, and the new count."""
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    return [(e["action"], e["size"]) for e in trace[seen:] if e["action"] != "snapshot"], len(trace)


def main():
    torch.cuda.init()
    torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 22)
    for label, setup, stmt in PROBES:
        names = {"torch": torch, "N": N}
        exec(setup, names)
        torch.cuda.synchronize()
        _, seen = events(0)
        exec(stmt, names)
        torch.cuda.synchronize()
        evs, _ = events(seen)
        print(f"{label}: {stmt}")
        for action, size in evs:
            print(f"    {action} {size}")
        print(f"    allocated after: {torch.cuda.memory_allocated()}")
        names.clear()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
