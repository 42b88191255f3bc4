# A call of the dict or list type allocates the new object with tp_alloc,
# which no free list serves: each counts one allocation in generation 0
# even with dicts and lists freed just before, and still goes back to the
# free list when freed (so a display, {} or [], right after counts nothing).
import gc

gc.disable()
gc.collect()
items = [1, 2]
rounds = []
for i in range(4):
    a = gc.get_count()[0]
    d = dict(version=1)
    b = gc.get_count()[0]
    e = dict()
    c = gc.get_count()[0]
    l = list(items)
    f = list()
    g = gc.get_count()[0]
    del d, e, l, f
    h = gc.get_count()[0]
    shown = {}
    k = gc.get_count()[0]
    shown2 = []
    m = gc.get_count()[0]
    del shown, shown2
    rounds.append((b - a, c - b, g - c, h - g, k - h, m - k))
print(rounds)
