#!/usr/bin/env python3
"""Probe the order of PyTorch's pooled CUDA streams' handles, on which the
caching allocator orders its free blocks (and so empty_cache its frees),
and what torch.cuda.ExternalStream is, printed one per line:

    python3 scripts/probe_stream_handles.py > testdata/pyrules/streams_handles.txt

In fresh processes (some after other CUDA work first), the 128 pooled
streams of device 0 listed in the order PyTorch creates them (slot by
slot, priorities 0, -1, -2, -3 within a slot), then their indices in that
list sorted by handle: the identity where the driver's handles rise in
creation order.
"""
import subprocess
import sys

CHILD = r"""
import sys
import torch
if sys.argv[1] == 'busy':
    a = torch.randn(4096, 4096, device='cuda')
    b = a @ a
    torch.cuda.synchronize()
if sys.argv[1] == 'event':
    torch.cuda.Event().record()
pools = [[torch.cuda.Stream(priority=-p) for _ in range(32)] for p in range(4)]
made = [pools[p][i] for i in range(32) for p in range(4)]
h = [x.cuda_stream for x in made]
order = sorted(range(128), key=lambda i: h[i])
out = [i for i in range(128) if order[i] != i]
print(sys.argv[1], 'out of place', out, 'order', order)
"""

for pre in ("fresh", "fresh", "fresh", "busy", "busy", "event"):
    r = subprocess.run([sys.executable, "-c", CHILD, pre], capture_output=True, text=True)
    print(r.stdout.strip() or r.stderr.strip().splitlines()[-1], flush=True)

import torch

N = 8 * 2**20
s = torch.cuda.Stream()
for arg in (s.cuda_stream, 0):
    try:
        x = torch.cuda.ExternalStream(arg)
        print("ExternalStream", arg == 0, x == s, x.stream_id == s.stream_id, x.cuda_stream == arg, type(x).__mro__[1].__name__, flush=True)
    except Exception as e:
        print("ExternalStream", arg == 0, type(e).__name__, e, flush=True)
x = torch.cuda.ExternalStream(s.cuda_stream)
with torch.cuda.stream(s):
    a = torch.empty(N, device="cuda")
del a
r = torch.cuda.memory_reserved()
with torch.cuda.stream(x):
    b = torch.empty(N, device="cuda")
print("ExternalStream of a pooled stream's handle takes its freed block", torch.cuda.memory_reserved() == r, flush=True)
