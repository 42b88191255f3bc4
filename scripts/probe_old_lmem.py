# Where the CUDA driver puts segments once the context's local memory has
# grown: in the old local memory's range from its bottom up (a hole the
# driver keeps, as nanogpt_bf16_accum's line 83 shows) or from its top
# down (a range given back to the process, where train_sweep's line 64
# put a segment and a library); and whether a large host tensor that
# lived above the context while it was made, then freed, takes the
# driver's next chunk (train_sweep's line 56: its model was built on the
# host). PROBE_HOST=1 makes the first tensor on the host and copies it;
# otherwise it is made on the GPU. PROBE_FIRST=embedding makes the first
# kernel an embedding lookup (train_sweep's), of indices and a table
# that PyTorch's random number generators made (they grow nothing);
# otherwise it is a fill. Run under scripts/record_script.py
# --addresses; testdata/segments/README.md reads the recordings.
import os

import torch
import torch.nn.functional as F

HOST = os.environ.get("PROBE_HOST") == "1"
LOOKUP_FIRST = os.environ.get("PROBE_FIRST") == "embedding"

MiB = 1 << 20
first = torch.empty(96 * MiB, dtype=torch.uint8, device="cpu" if HOST else "cuda")
d = first.cuda()
del first
gap = torch.empty(24 * MiB, dtype=torch.uint8, device="cuda")
a = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
if LOOKUP_FIRST:
    b = F.embedding(torch.randint(0, 8, (256,), device="cuda"), torch.randn(8, 4, device="cuda"))
else:
    b = torch.zeros(1024, device="cuda")
c = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
e = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
f = torch.empty(64 * MiB, dtype=torch.uint8, device="cuda")
s = b.sum()
g = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
w = F.embedding(torch.zeros(4, dtype=torch.long, device="cuda"), torch.ones(8, 4, device="cuda"))
h = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
