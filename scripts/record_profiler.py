#!/usr/bin/env python3
"""Record what PyTorch's own memory profiler says of a training program.

    python3 scripts/record_profiler.py OUTDIR SCRIPT.py...
    python3 scripts/record_profiler.py --dry-run OUTDIR SCRIPT.py...

Each SCRIPT runs in a process of its own (all at once, one a script) as
`python3 SCRIPT.py` would run it, under torch.profiler.profile with
profile_memory=True, record_shapes=True and with_stack=True (what
torch.profiler._memory_profiler needs to sort memory into categories),
and writes OUTDIR/NAME.profile.json.gz, one JSON object:

- "allocations": cuda:0's allocator events as the profiler saw them, in
  the order they happened: [time_ns, allocation_id, size, total_allocated,
  ptr],
  size negative for a free (PyTorch's alloc_size: the block's size),
  total_allocated the allocator's allocated bytes after the event (block
  sizes: torch.cuda.memory_allocated);
- "timeline": MemoryProfile.timeline's entries on cuda:0, [time_ns,
  action, allocation_id, tensor_id, version, bytes], allocation_id null
  for an allocation the profiler ties to no tensor (a library workspace);
- "categories": {"tensor_id:version": CATEGORY} for every tensor
  version the timeline names (CategoryDict.get; null where the profiler
  gives none);
- "max_allocated": torch.cuda.max_memory_allocated() at the end.

Nothing is worked out here: the peak is the allocation event with the
most total_allocated, and what each category holds there is the
timeline's entries up to its time; the allocations match gpumemrepl's
in order (the training programs' events match PyTorch's one for one).
Its recordings of testdata/models/train_{mlp,cnn,gpt}.py are in
testdata/models (README there).

--dry-run checks the arguments and writes, for each script, the file's
name it would write, without torch.
"""
import gzip
import json
import os
import subprocess
import sys


def record(script, out):
    import torch
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile
    from torch.profiler._memory_profiler import TensorKey

    src = open(script).read()
    code = compile(src, script, "exec")
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    env = {"__name__": "__main__", "__file__": script}
    acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=acts, profile_memory=True, record_shapes=True, with_stack=True) as prof:
        exec(code, env)
    torch.cuda.synchronize()
    mem = prof._memory_profile()
    cuda0 = torch.device("cuda", 0)
    allocations = []
    for node in mem._op_tree.sorted_nodes:
        if node.typed[0] != _EventType.Allocation:
            continue
        a = node.typed[1]
        if device_of(a) != cuda0:
            continue
        key = TensorKey.from_allocation(a)
        allocations.append([node.start_time_ns, key.storage.allocation_id if key else None, a.alloc_size, a.total_allocated, a.ptr])
    timeline, versions = [], set()
    for t, action, (key, version), nbytes in mem.timeline:
        if key.device != cuda0:
            continue
        if isinstance(key, TensorKey):
            timeline.append([t, action.name, key.storage.allocation_id, key.id, version, nbytes])
            versions.add((key, version))
        else:
            timeline.append([t, action.name, None, None, version, nbytes])
    categories = {}
    for key, version in versions:
        try:
            c = mem._categories.get(key, version)
        except KeyError:
            c = None
        categories["%d:%d" % (key.id, version)] = c.name if c is not None else None
    row = {
        "script": os.path.basename(script),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "allocations": allocations,
        "timeline": timeline,
        "categories": categories,
    }
    with gzip.open(out, "wt") as f:
        json.dump(row, f)


def device_of(a):
    """An allocation's device (older PyTorch has only its type and index)."""
    import torch

    d = getattr(a, "device", None)
    if d is None:
        d = torch.device("cuda" if "CUDA" in str(a.device_type) else "cpu", a.device_index)
    return d


def out_name(outdir, script):
    name = os.path.splitext(os.path.basename(script))[0]
    return os.path.join(outdir, name + ".profile.json.gz")


def main(argv):
    dry = argv[:1] == ["--dry-run"]
    if dry:
        argv = argv[1:]
    if argv[:1] == ["--one"]:  # a child: one script
        record(argv[1], argv[2])
        return 0
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    outdir, scripts = argv[0], argv[1:]
    os.makedirs(outdir, exist_ok=True)
    for s in scripts:
        if not os.path.isfile(s):
            print("%s: no such script" % s, file=sys.stderr)
            return 1
    if dry:
        for s in scripts:
            print(out_name(outdir, s))
        return 0
    procs = [(s, subprocess.Popen([sys.executable, __file__, "--one", s, out_name(outdir, s)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
             for s in scripts]
    status = 0
    for s, p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            status = 1
            print("%s: exit %d\n%s" % (s, p.returncode, err.decode()[-3000:]), file=sys.stderr)
        else:
            print("%s: %s" % (s, out_name(outdir, s)))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
