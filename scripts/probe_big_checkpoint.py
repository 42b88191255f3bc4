#!/usr/bin/env python3
"""Save a checkpoint of several GB with torch.save and load it back in
fresh processes, recording what loading it allocates on the GPU.

    python3 scripts/probe_big_checkpoint.py DIR OUT.json

Saves a Llama-shaped state dict (OpenLLaMA 3B's shapes, bfloat16, made on
cuda:0 without initialising it: 3.4e9 parameters, 6.9 GB) to
DIR/llama3b.pt, then loads it in one fresh python3 process each way
(torch.load(..., map_location='cuda', mmap=True, weights_only=True), and
without mmap) and records after each load torch.cuda.memory_allocated,
memory_reserved and their peaks, the allocator's events (action, size),
the load's wall time and the process's peak RSS. OUT.json also has the
file's layout without its tensor data: for every zip entry its name,
local header offset, sizes, CRC and the raw bytes of its local header,
the contents of every entry under 1 MiB (data.pkl and the small
records), and the raw bytes from the end of the last entry's data to the
end of the file (the central directory): enough to rebuild the file
with zeros for its tensor data (allocator tests read it so).

--dry-run does the same with numpy-free stand-ins where torch is
missing: a small zip made by Python's zipfile, no loads.
"""
import base64
import json
import os
import resource
import subprocess
import sys
import time
import zipfile

LAYERS, DIM, HIDDEN, VOCAB = 26, 3200, 8640, 32000


def shapes():
    out = [("tok_embeddings.weight", (VOCAB, DIM))]
    for i in range(LAYERS):
        p = f"layers.{i}."
        out += [(p + "attention.wq.weight", (DIM, DIM)), (p + "attention.wk.weight", (DIM, DIM)),
                (p + "attention.wv.weight", (DIM, DIM)), (p + "attention.wo.weight", (DIM, DIM)),
                (p + "feed_forward.w1.weight", (HIDDEN, DIM)), (p + "feed_forward.w2.weight", (DIM, HIDDEN)),
                (p + "feed_forward.w3.weight", (HIDDEN, DIM)),
                (p + "attention_norm.weight", (DIM,)), (p + "ffn_norm.weight", (DIM,))]
    out += [("norm.weight", (DIM,)), ("output.weight", (VOCAB, DIM))]
    return out


def save(path):
    import torch
    from collections import OrderedDict
    sd = OrderedDict((name, torch.empty(shape, dtype=torch.bfloat16, device="cuda")) for name, shape in shapes())
    t0 = time.time()
    torch.save(sd, path)
    return {"save_s": time.time() - t0, "params": sum(t.numel() for t in sd.values()), "bytes": os.path.getsize(path)}


LOADER = r"""
import json, resource, sys, time
import torch
path, mmap = sys.argv[1], sys.argv[2] == "1"
torch.cuda.init()
torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1 << 20)
t0 = time.time()
sd = torch.load(path, map_location="cuda", mmap=mmap, weights_only=True)
torch.cuda.synchronize()
dt = time.time() - t0
ev = [[e["action"], e["size"]] for e in torch.cuda.memory._snapshot()["device_traces"][0]]
print(json.dumps({"mmap": mmap, "load_s": dt, "tensors": len(sd),
    "allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved(),
    "max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved(),
    "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "events": ev}))
"""


def load(path, mmap):
    r = subprocess.run([sys.executable, "-c", LOADER, path, "1" if mmap else "0"], capture_output=True, text=True)
    if r.returncode != 0:
        return {"mmap": mmap, "error": r.stderr[-2000:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def layout(path):
    """The file without its tensor data: every entry's header and place,
    the small entries' contents, and the bytes after the last entry."""
    entries, end = [], 0
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for info in z.infolist():
            f.seek(info.header_offset)
            head = f.read(30)
            n, m = int.from_bytes(head[26:28], "little"), int.from_bytes(head[28:30], "little")
            head += f.read(n + m)
            e = {"name": info.filename, "offset": info.header_offset, "header": base64.b64encode(head).decode(),
                 "size": info.file_size, "compress_size": info.compress_size, "crc": info.CRC}
            if info.file_size < 1 << 20:
                e["data"] = base64.b64encode(z.read(info.filename)).decode()
            entries.append(e)
            end = max(end, info.header_offset + len(head) + info.compress_size)
        f.seek(end)
        tail = f.read()
    return {"entries": entries, "tail_offset": end, "tail": base64.b64encode(tail).decode(), "size": os.path.getsize(path)}


def main():
    args = sys.argv[1:]
    dry = args[:1] == ["--dry-run"]
    if dry:
        args = args[1:]
    directory, out = args
    path = os.path.join(directory, "llama3b.pt")
    rec = {}
    if dry:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            z.writestr("llama3b/data.pkl", b"\x80\x02}q\x00.")
            z.writestr("llama3b/data/0", b"\x00" * (2 << 20))
        rec["shapes"] = len(shapes())
    else:
        rec["save"] = save(path)
        rec["loads"] = [load(path, True), load(path, False)]
    rec["layout"] = layout(path)
    with open(out, "w") as w:
        json.dump(rec, w)
    os.remove(path)
    print(json.dumps({k: v for k, v in rec.items() if k != "layout"})[:3000])


if __name__ == "__main__":
    main()
