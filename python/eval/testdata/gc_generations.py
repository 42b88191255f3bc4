# CPython's generational collector: thresholds, counts, automatic
# collection of cycles as allocations pass generation 0's threshold,
# is_tracked, get_referrers, callbacks, freeze; the figures printed are
# those that do not depend on what the interpreter allocates internally.
import gc
import weakref

print(gc.get_threshold(), gc.isenabled())
print(gc.is_tracked(1), gc.is_tracked("s"), gc.is_tracked([]), gc.is_tracked({}), gc.is_tracked({"a": []}))


class Node:
    pass


n = Node()
print(gc.is_tracked(n), gc.is_tracked(Node), gc.is_tracked(lambda: 0))
holder = [n]
print(any(r is holder for r in gc.get_referrers(n)))
print(gc.get_referents(holder)[0] is n)
del holder

freed = []
gc.collect()
print(gc.get_count())
c = Node()
c.me = c
weakref.finalize(c, freed.append, "cycle")
del c
print(freed)
before = gc.get_stats()[0]["collections"]
for i in range(2000):
    x = Node()
    x.me = x
print(freed, gc.get_stats()[0]["collections"] > before)

gc.disable()
d = Node()
d.me = d
weakref.finalize(d, freed.append, "while disabled")
del d
for i in range(2000):
    x = Node()
    x.me = x
print(freed, gc.isenabled(), gc.get_count()[0] > 700)
gc.enable()
for i in range(10):
    x = Node()
    x.me = x
print(freed)

gc.set_threshold(5)
print(gc.get_threshold())
phases = []
gc.callbacks.append(lambda phase, info: phases.append((phase, info["generation"], sorted(info))))
for i in range(10):
    x = Node()
    x.me = x
gc.callbacks.clear()
print(phases[:2])
gc.set_threshold(700, 10, 10)

gc.collect()
print(gc.get_count(), gc.collect(0), gc.get_count())
gc.freeze()
print(gc.get_count()[0], gc.get_freeze_count() > 0)
e = Node()
e.me = e
weakref.finalize(e, freed.append, "frozen?")
print(gc.collect(), freed[-1])
gc.unfreeze()
print(gc.get_freeze_count())
del e
gc.collect()
print(freed[-1])
try:
    gc.collect(3)
except ValueError as err:
    print(err)
try:
    gc.get_objects(5)
except ValueError as err:
    print(err)
