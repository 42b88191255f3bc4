import math
from functools import partial, reduce
from contextlib import contextmanager
a, *rest = range(5)
print(a, rest)
x = y = 3
x += 2
print(x, y, 7 // 2, -7 // 2, 7 % -3, 2 ** 10, 2 ** -1, 10 / 4, 1 << 40, (1 << 70) // 3)
print(round(2.5), round(3.14159, 2), abs(-3), divmod(17, 5), max([3, 1, 4]), min(3, 1, key=lambda v: -v))
print(sorted([3, 1, 2], reverse=True), list(reversed([1, 2, 3])), list(enumerate("ab", 1)))
print("a,b,,c".split(","), " x y ".split(), "-".join(["a", "b"]), "Abc".upper(), "x".center(5, "*"))
print(f"{'q'!r:>6}|{12345678:,}|{0.25:.1%}|{255:#x}|{3:03d}|{1e20}|{1/3}")
print(math.sqrt(16), math.ceil(2.1), math.floor(-2.1), math.prod([2, 3, 4]), math.pi)
if (n := 10) > 5:
    print("walrus", n)
def deco(fn):
    def wrapper(*a, **k):
        print("calling", fn.__name__)
        return fn(*a, **k)
    return wrapper
@deco
def add(p, q):
    return p + q
print(add(2, 3))
class P:
    count = 0
    def __init__(self):
        P.count += 1
        self._v = 1
    @property
    def v(self):
        return self._v
    @v.setter
    def v(self, val):
        self._v = val * 2
    @staticmethod
    def s():
        return "static"
    @classmethod
    def c(cls):
        return cls.__name__
p = P()
p.v = 5
print(p.v, P.s(), P.c(), P.count)
@contextmanager
def ctx(name):
    print("enter", name)
    try:
        yield name.upper()
    finally:
        print("exit", name)
with ctx("a") as A, ctx("b") as B:
    print("body", A, B)
print(partial(pow, 2)(8), reduce(lambda s, v: s + v, [1, 2, 3]))
i = 0
while True:
    i += 1
    if i > 3:
        break
print("i", i)
def counter():
    total = 0
    def inc():
        nonlocal total
        total += 1
        return total
    return inc
c = counter(); c(); print(c())
g = 0
def setg():
    global g
    g = 9
setg(); print(g)
print([(i, j) for i in range(3) for j in range(i)], {1, 2} | {3} if False else "set", (1,), ())
try:
    pass
finally:
    print("finally")
def tf():
    try:
        return "try"
    finally:
        print("in finally")
print(tf())
print(isinstance(True, int), type(3).__name__, str(None), bool([]), 3 in [1, 3], "b" in "abc", 1 == 1.0)
print(repr("it's"), repr('say "hi"'), [None, True, 1.5, "s"], {"a": [1, {2}]})
lst = [5, 6, 7, 8]
lst[1:3] = [0]
del lst[0]
print(lst, lst[::-1], "hello"[1:4], list(range(10))[2:8:3])
print(any(v > 2 for v in [1, 3]), all([]), list(map(str, [1, 2])), list(filter(None, [0, 1, 2])))
print(int(3.9), int("42"), float("1.5"), str(1.0), 0.1 + 0.2, 1e16, 123456789.0 * 1000, -0.0)
