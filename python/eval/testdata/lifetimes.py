# When objects die, shown by __del__: CPython's order.
import gc, sys

class T:
    def __init__(self, name):
        self.name = name
    def __del__(self):
        print("  free", self.name)

print("rebind")
x = T("x1")
x = T("x2")
print("del")
del x
print("list clear, last first")
l = [T("a"), T("b"), T("c")]
l = None
print("dict in order")
d = {"k1": T("d1"), "k2": T("d2")}
del d
print("function locals at return")
def f():
    a = T("local a")
    b = T("local b")
    print("  returning")
    return 1
f()
print("temporary argument")
def g(t):
    print("  in g")
print(g(T("temp")))
print("exception keeps the frame")
def h():
    big = T("big in h")
    raise ValueError("boom")
try:
    h()
except ValueError as e:
    print("  handled", e)
print("after except")
saved = None
try:
    h()
except ValueError as e:
    saved = e
print("saved exception")
saved = None
print("cycle waits for gc")
a = T("cyc a"); b = T("cyc b")
a.other = b; b.other = a
del a, b
print("  collecting")
n = gc.collect()
print("  collected", n > 0)
print("generator closed on drop")
def gen():
    try:
        yield 1
        yield 2
    finally:
        print("  gen finally")
it = gen()
print(next(it))
it = None
print("closure cell")
def outer():
    v = T("cell v")
    def inner():
        return v.name
    return inner
fn = outer()
print(fn())
del fn
print("comprehension variable")
r = [T("c%d" % i).name for i in range(2)]
print(r)
print("loop variable survives the loop")
for t in [T("loop1"), T("loop2")]:
    pass
print("  after loop")
del t
print("refcount", sys.getrefcount(T("rc")) )
print("end")
