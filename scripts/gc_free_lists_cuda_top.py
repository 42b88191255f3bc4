# The free lists of lists, dicts and tuples around a script's first CUDA
# tensor made by a top-level statement (as gc_costs.py's, fairscale424's
# and keras23206's are), to set beside scripts/gc_free_lists_first.py's,
# whose first one is made inside a method (Holder.__init__, as
# ppwwyyxx's): whether what CUDA's lazy initialization takes from them
# depends on the frames it runs under. The same statements as there up
# to the first call, less the class statement:
#   python3 scripts/record_gc.py scripts/gc_free_lists_cuda_top.py OUT.jsonl 2>OUT.stderr
import sys
import torch
import torch.nn as nn

if True:
    sys._debugmallocstats()
    x = torch.empty(4, device="cuda")
    sys._debugmallocstats()
