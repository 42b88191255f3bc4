# The free lists of lists, dicts and tuples around a script's first CUDA
# tensors made by Module.cuda() (gh20199's and gh28647's first, where
# the rounds' reads find three 1-tuples fewer than after a first
# Module.to("cuda:0"), gh46386's, or a torch.empty), then by a second
# module's Module.to and a Tensor.cuda():
#   python3 scripts/record_gc.py scripts/gc_free_lists_module_cuda.py OUT.jsonl 2>OUT.stderr
import sys
import torch
import torch.nn as nn

m = nn.Linear(1024, 1024)
n = nn.Linear(1024, 1024)
t = torch.empty(4)
if True:
    sys._debugmallocstats()
    m.cuda()
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    n.to("cuda:0")
    sys._debugmallocstats()
if True:
    sys._debugmallocstats()
    u = t.cuda()
    sys._debugmallocstats()
