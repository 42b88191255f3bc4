# Where the 10 MiB the CUDA driver takes at the first reduction or
# embedding lookup goes when the newest chunk has a hole of exactly that
# size: ckpt_gpt_train's line 67 left such a hole (a 20 MiB and a 2 MiB
# segment in a 32 MiB chunk) and its driver put the 10 MiB in the old
# local memory instead, where amp_linear's took a 12 MiB hole.
# PROBE_OP=sum runs a reduction, otherwise an embedding lookup. Run under
# scripts/record_script.py --addresses; testdata/segments/README.md reads
# the recordings.
import os

import torch
import torch.nn.functional as F

SUM = os.environ.get("PROBE_OP") == "sum"

MiB = 1 << 20
small = [torch.empty(MiB, dtype=torch.uint8, device="cuda") for _ in range(2)]  # a 2 MiB segment: the context's 2 MiB gap
gap = torch.empty(24 * MiB, dtype=torch.uint8, device="cuda")  # the context's 24 MiB gap
a = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")  # a new 32 MiB chunk, 12 MiB free
more = torch.empty(MiB, dtype=torch.uint8, device="cuda")  # a 2 MiB segment in the chunk: 10 MiB free
b = torch.zeros(1024, device="cuda")  # the first kernel: the local memory grows
if SUM:
    r = b.sum()
else:
    r = F.embedding(torch.zeros(4, dtype=torch.long, device="cuda"), torch.ones(8, 4, device="cuda"))
c = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
e = torch.empty(8 * MiB, dtype=torch.uint8, device="cuda")
