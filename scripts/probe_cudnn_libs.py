# Where the CUDA driver puts new chunks after cuDNN's first use when the
# driver gave the context's old local memory back at the first kernel
# (its own 2 MiB went to a newer chunk's hole, as probe_old_lmem's host0
# runs show): into what is free of that range, or below the new local
# memory because cuDNN's libraries (about 350 MiB) filled it, as
# train_sweep's line 64 shows (231 MiB of code there). PROBE_CUDNN=conv
# makes cuDNN's first use a convolution, otherwise a bfloat16 attention
# (cuDNN's on the H100). Run under scripts/record_script.py --addresses;
# testdata/segments/README.md reads the recordings.
import os

import torch
import torch.nn.functional as F

CONV = os.environ.get("PROBE_CUDNN") == "conv"

MiB = 1 << 20
first = torch.empty(96 * MiB, dtype=torch.uint8, device="cuda")  # a chunk of its own, full
gap = torch.empty(24 * MiB, dtype=torch.uint8, device="cuda")  # the context's 24 MiB gap
a = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")  # a new chunk with a 12 MiB hole
b = torch.zeros(1024, device="cuda")  # the first kernel: the driver's 2 MiB in a's hole, the old local memory given back
c = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")  # carved from the given-back range's top
if CONV:
    x = torch.randn(1, 3, 32, 32, device="cuda")
    w = torch.randn(8, 3, 3, 3, device="cuda")
    y = F.conv2d(x, w)
else:
    q = torch.randn(1, 8, 128, 64, device="cuda", dtype=torch.bfloat16)
    y = F.scaled_dot_product_attention(q, q, q)
d = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
e = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
f = torch.empty(64 * MiB, dtype=torch.uint8, device="cuda")
g = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
