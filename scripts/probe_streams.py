#!/usr/bin/env python3
"""Probe PyTorch's CUDA streams and events on a GPU machine, as facts the
tool's stream model rests on, printed one per line:

    python3 scripts/probe_streams.py > testdata/pyrules/streams_probe.txt

What a Stream and an Event print and hold (handles, ids, priorities, the
pool of streams that Stream() hands out round robin), their errors, the
stream and state of a snapshot's blocks, and how a record_stream block's
reuse depends on GPU timing: a short kernel on the side stream, freed and
allocated again at once, after a host sleep, and with a long kernel.
"""
import time

import torch

N = 8 * 2**20


def line(*a):
    print(*a, flush=True)


def err(f):
    try:
        return repr(f())
    except Exception as e:  # the text is the fact
        return type(e).__name__ + ": " + str(e)


d = torch.cuda.default_stream()
line("default", repr(d), d.cuda_stream, d.stream_id, d.device_index, d.device_type, d.priority)
line("current is default", torch.cuda.current_stream() == d, torch.cuda.current_stream() is d)
line("priority range", torch.cuda.Stream.priority_range())
ss = [torch.cuda.Stream() for _ in range(34)]
base = ss[0].cuda_stream
line("pool handles minus first", [x.cuda_stream - base for x in ss])
line("pool stream_ids", [x.stream_id for x in ss])
line("s0 == s32", ss[0] == ss[32], ss[0].cuda_stream == ss[32].cuda_stream, hash(ss[0]) == hash(ss[32]))
line("repr", repr(ss[0]), str(ss[0]))
hp = [torch.cuda.Stream(priority=p) for p in (-1, -2, -5, 0, 1, 3)]
line("priorities", [x.priority for x in hp], [x.cuda_stream - base for x in hp])
line("stream(device=cuda:1)", err(lambda: torch.cuda.Stream(device=1)))
line("stream(device=cpu)", err(lambda: torch.cuda.Stream(device="cpu")))
line("Stream(priority='a')", err(lambda: torch.cuda.Stream(priority="a")))
line("stream(s) type", type(torch.cuda.stream(ss[0])).__name__, repr(torch.cuda.stream(None).stream))
line("stream(non-stream)", err(lambda: torch.cuda.stream(3).__enter__()))
line("set_stream(None)", err(lambda: torch.cuda.set_stream(None)))
line("current_stream(1)", err(lambda: torch.cuda.current_stream(1)))
line("query/sync return", ss[1].query(), ss[1].synchronize(), ss[1].wait_stream(d), d.wait_stream(ss[1]))
ev = torch.cuda.Event()
line("event", repr(ev), ev.query(), ev.cuda_event, ev.synchronize(), ev.record(), ev.query(), ev.wait())
ev2 = ss[1].record_event()
line("record_event", type(ev2).__name__, ev2.query())
t1, t2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
line("elapsed no record", err(lambda: t1.elapsed_time(t2)))
t1.record(); t2.record(); t2.synchronize()
line("elapsed ok type", type(t1.elapsed_time(t2)).__name__)
line("elapsed no timing", err(lambda: ev.elapsed_time(ev2)))
line("Event kwargs", err(lambda: torch.cuda.Event(enable_timing=False, blocking=True, interprocess=False)))
line("synchronize returns", torch.cuda.synchronize(), torch.cuda.synchronize(0))
line("record_stream non-stream", err(lambda: torch.ones(1, device="cuda").record_stream(3)))
line("record_stream cpu", err(lambda: torch.ones(1).record_stream(ss[0])))
torch.cuda.synchronize()

s = ss[2]
torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python")
x = torch.ones(N, device="cuda")
with torch.cuda.stream(s):
    torch.cuda._sleep(1_000_000_000)
    y = x * 2
    z = torch.empty(1000, device="cuda")
x.record_stream(s)
del x
snap = torch.cuda.memory._snapshot()
segs = [(seg["stream"] == s.cuda_stream, seg["stream"] == 0, seg["total_size"], [b["state"] for b in seg["blocks"]]) for seg in snap["segments"]]
line("snapshot segments (on s, on default, size, states)", segs)
line("trace", [(e["action"], e["size"], e["stream"] == s.cuda_stream, e["stream"] == 0) for e in snap["device_traces"][0]])
torch.cuda.synchronize()
del y, z
torch.cuda.memory._record_memory_history(enabled=None)
torch.cuda.empty_cache()


def reuse(kernel, host_sleep, sync):
    """Whether an allocation right after freeing a record_stream block reuses it."""
    torch.cuda.empty_cache()
    x = torch.ones(N, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        if kernel == "long":
            torch.cuda._sleep(1_000_000_000)
        y = x * 2
    x.record_stream(s)
    del x
    if host_sleep:
        time.sleep(host_sleep)
    if sync:
        torch.cuda.synchronize()
    before = torch.cuda.memory_reserved()
    z = torch.empty(N, device="cuda")
    r = torch.cuda.memory_reserved() == before
    torch.cuda.synchronize()
    del y, z
    return r


def reuse_after_event():
    """An Event recorded on the side stream before the free, synchronized before the next allocation."""
    torch.cuda.empty_cache()
    x = torch.ones(N, device="cuda")
    torch.cuda.synchronize()
    e = torch.cuda.Event()
    with torch.cuda.stream(s):
        torch.cuda._sleep(1_000_000_000)
        y = x * 2
        e.record()
    x.record_stream(s)
    del x
    e.synchronize()
    before = torch.cuda.memory_reserved()
    z = torch.empty(N, device="cuda")
    r = torch.cuda.memory_reserved() == before
    torch.cuda.synchronize()
    del y, z
    return r


line("reuse after an event recorded before the free", [reuse_after_event() for _ in range(4)])
for kernel in ("short", "long"):
    for host_sleep in (0, 0.001, 0.05):
        for sync in (False, True):
            line("reuse", kernel, host_sleep, sync, [reuse(kernel, host_sleep, sync) for _ in range(6)])


def pinned_reuse(sync):
    """Whether a pinned block freed behind a non-blocking copy on a side stream is reused after sync."""
    h = torch.ones(N).pin_memory()
    with torch.cuda.stream(s):
        torch.cuda._sleep(1_000_000_000)
        g = h.to("cuda", non_blocking=True)
    del h
    sync()
    before = torch.cuda.host_memory_stats()["allocations.current"]
    h2 = torch.ones(N).pin_memory()
    r = torch.cuda.host_memory_stats()["allocations.current"] == before
    torch.cuda.synchronize()
    del g, h2
    torch._C._host_emptyCache()
    return r


line("pinned reuse after s.synchronize()", [pinned_reuse(s.synchronize) for _ in range(3)])
line("pinned reuse after torch.cuda.synchronize()", [pinned_reuse(torch.cuda.synchronize) for _ in range(3)])
line("pinned reuse after default_stream().synchronize()", [pinned_reuse(torch.cuda.default_stream().synchronize) for _ in range(3)])
