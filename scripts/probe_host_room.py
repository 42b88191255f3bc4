# Where the CUDA driver puts its next chunks when the host mapped memory
# above the context before it was made: the tool labels a tie of best
# fit between blocks of such chunks (they may lie in the room the host's
# mappings leave, testdata/segments/README.md), by a rule read off
# module_convert (the host's intra-op threads' malloc arenas, 64 MiB
# apart), train_sweep and probe_old_lmem_host1 (one large host tensor,
# freed). PROBE_ROOM picks what the host does before the first CUDA use:
#   ops      the model-building ops one at a time (which start the
#            intra-op threads? llama_train's model made arenas);
#   threads  a fill of 3M elements (module_convert's), nothing kept;
#   tensorN  one host tensor of N MiB, kept until after the context is
#            made, then freed;
#   smallN   N host tensors of 2 MiB each (all mapped by malloc), freed
#            after the context is made (do adjacent holes join?).
# Then 20 MiB segments (the first in the context's gap, the next two in
# new 32 MiB chunks) and a 64 MiB one. Run under scripts/record_script.py
# --addresses (its maps show the arenas, the host tensors and the chunks).
import os

import torch
from torch import nn

ROOM = os.environ.get("PROBE_ROOM")

MiB = 1 << 20
torch.manual_seed(0)
emb = nn.Embedding(7919, 512) if ROOM == "ops" else None
lin = nn.Linear(512, 7919) if ROOM == "ops" else None
ones = torch.ones(512) if ROOM == "ops" else None
freqs = torch.outer(torch.arange(256).float(), torch.ones(32)) if ROOM == "ops" else None
cos = freqs.cos() if ROOM == "ops" else None
filled = torch.ones(3, 1024, 1024) if ROOM in ("ops", "threads") else None
del filled
host = []
if ROOM is not None and ROOM.startswith("tensor"):
    host = [torch.empty(int(ROOM[6:]) * MiB, dtype=torch.uint8)]
if ROOM is not None and ROOM.startswith("small"):
    host = [torch.empty(2 * MiB, dtype=torch.uint8) for _ in range(int(ROOM[5:]))]
a = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
host.clear()
b = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
c = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
d = torch.empty(64 * MiB, dtype=torch.uint8, device="cuda")
e = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
