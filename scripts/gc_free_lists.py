# What CPython's free lists of lists, dicts and tuples hold once import
# torch has run as scripts/record_gc.py runs a script (its own imports and
# its compile of the script ran first, unlike record_gc.py --start's
# fresh processes): a collection's timing in a loop that leaks cycles
# depends on them (a tuple or list that a free list serves counts
# nothing). sys._debugmallocstats() writes them to the C stderr:
#   python3 scripts/record_gc.py scripts/gc_free_lists.py OUT.jsonl 2>OUT.stderr
if True:
    import torch
    import sys

    sys._debugmallocstats()
