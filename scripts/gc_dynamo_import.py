# What the first torch.optim optimizer does to CPython's collector: its
# add_param_group (torch._disable_dynamo) imports torch._dynamo, some
# 191,664 container objects (testdata/experiments/gc/gc_costs.py line 29,
# collector off), with the collections that sets off. Under
# scripts/record_gc.py (--trace: each collection's generation and where
# it fell), with the free lists as the construction leaves them, read in
# the same top-level statement before the recorder's reads move them:
#   python3 scripts/record_gc.py scripts/gc_dynamo_import.py OUT.jsonl 2>OUT.stderr
import sys
import gc
import torch

weight = torch.nn.Linear(100, 100).to("cuda")
before = [s["collections"] for s in gc.get_stats()]
if True:
    op = torch.optim.Adam(weight.parameters())
    sys._debugmallocstats()
after = [s["collections"] for s in gc.get_stats()]
print(before, after, [len(gc.get_objects(g)) for g in range(3)])
