# What the CUDA driver takes at cuDNN's first convolution, and where:
# vit_train's recording with addresses fits 2 MiB taken before the first
# kernel grows the local memory, by the driver's rule (its newest
# chunk's 12 MiB hole, so that the next 12 MiB segment went to the old
# local memory), siamese_triplet's 2 MiB in the context's 24 MiB gap;
# dcgan_train's and cnn_net's, whose local memory grew first, 6 MiB
# (2 host-mapped) in the old local memory. Here the newest chunk has a
# 12 MiB hole when the convolution runs: as the program's first kernel,
# or (PROBE_FIRST=fill) after a fill grew the local memory; a 12 MiB
# tensor after it shows whether the hole is still whole. Run under
# scripts/record_script.py --addresses; testdata/segments/README.md reads
# the recordings.
import os

import torch
import torch.nn.functional as F

FILL = os.environ.get("PROBE_FIRST") == "fill"

MiB = 1 << 20
gap = torch.empty(24 * MiB, dtype=torch.uint8, device="cuda")  # the context's 24 MiB gap
small = torch.empty(1024, dtype=torch.uint8, device="cuda")  # the small pool's 2 MiB segment
a = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")  # a new 32 MiB chunk, 12 MiB free
x = torch.empty(1, 3, 8, 8, device="cuda")  # no kernel: the small segment
w = torch.empty(4, 3, 3, 3, device="cuda")
if FILL:
    z = torch.zeros(16, device="cuda")  # the first kernel: the local memory grows
y = F.conv2d(x, w)  # cuDNN's first handle
c = torch.empty(12 * MiB, dtype=torch.uint8, device="cuda")  # in the hole, if it is whole
d = torch.empty(20 * MiB, dtype=torch.uint8, device="cuda")
print(f"{a.data_ptr():#x} {c.data_ptr():#x} {d.data_ptr():#x}")
