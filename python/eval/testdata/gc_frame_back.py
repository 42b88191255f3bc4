# CPython 3.12's frame objects, as its collector counts them: a caught
# exception kept past its frame keeps the frame object its traceback
# made (with the exception and the traceback, three containers), and as
# that frame returns its frame object takes the frame's locals and
# links its caller's frame object (f_back), making it the first time:
# one more, and a caller whose frame object is so held makes its own
# caller's as it returns. What each call adds to generation 0's count is
# printed, the collector off (CPython 3.11 and 3.12.1 print the same).
import gc

gc.disable()
kept = []


def fail():
    try:
        raise ValueError
    except ValueError as e:
        kept.append(e)


def caller():
    fail()


def outer():
    caller()


def added(f):
    before = gc.get_count()[0]
    f()
    return gc.get_count()[0] - before


print(added(fail), added(fail))
print(added(caller), added(caller))
print(added(outer), added(outer))
print([added(fail) for _ in range(2)])
del kept[:]
print(gc.collect() > 0)
