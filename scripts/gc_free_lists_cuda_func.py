# The free lists of lists, dicts and tuples around a script's first CUDA
# tensor made inside a plain function (as blog_refcycle_nodes.py's, in
# leak()), beside scripts/gc_free_lists_cuda_top.py (a top-level
# statement) and scripts/gc_free_lists_first.py (a method):
#   python3 scripts/record_gc.py scripts/gc_free_lists_cuda_func.py OUT.jsonl 2>OUT.stderr
import sys
import torch
import torch.nn as nn


def make():
    return torch.empty(4, device="cuda")


if True:
    sys._debugmallocstats()
    x = make()
    sys._debugmallocstats()
