# The free lists of lists, dicts and tuples around a script's first CUDA
# tensor made by torch.randn in a top-level statement (fairscale424's
# first), beside scripts/gc_free_lists_cuda_top.py's torch.empty: whether
# the first CUDA generator's use takes from them too:
#   python3 scripts/record_gc.py scripts/gc_free_lists_randn.py OUT.jsonl 2>OUT.stderr
import sys
import torch
import torch.nn as nn

if True:
    sys._debugmallocstats()
    x = torch.randn(16, 1024, device="cuda")
    sys._debugmallocstats()
