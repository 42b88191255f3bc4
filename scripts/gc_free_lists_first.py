# What CPython's free lists of lists, dicts and tuples lose or gain over
# the first calls of torch's Python that the leak experiments make
# (testdata/experiments/gc: gh28647's and gh46386's first modules,
# ppwwyyxx's first CUDA tensor made inside a method, gh20199's first
# state_dict and load_state_dict, a first and second backward). Objects
# a free list serves count nothing, so gc.get_count() cannot show them,
# yet they decide when a later memory_stats() finds the lists empty.
# Each top-level statement reads sys._debugmallocstats() (to the C
# stderr) before and after one call, with nothing between:
#   python3 scripts/record_gc.py scripts/gc_free_lists_first.py OUT.jsonl 2>OUT.stderr
import sys
import torch
import torch.nn as nn


class Holder:
    def __init__(self):
        self.t = torch.empty(4, device="cuda")


if True:
    sys._debugmallocstats()
    h = Holder()
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    a = nn.Linear(8, 8)
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    b = nn.Linear(8, 8)
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    s = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    a.load_state_dict(b.state_dict())
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    a.load_state_dict(b.state_dict())
    sys._debugmallocstats()
x = torch.ones(4, device="cuda", requires_grad=True)
if True:
    sys._debugmallocstats()
    (x * 2).sum().backward()
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    (x * 2).sum().backward()
    sys._debugmallocstats()
