# Scoping cases for TestScopesMatchCPython: each function's locals,
# cells and free names must be CPython's.
import os.path as p
from collections import OrderedDict as OD, deque

g = 1


def plain(a, b=1, *args, c, d=2, **kw):
    x = y
    y = a + b
    for i, (j, *k) in enumerate(args):
        pass
    with open(p) as (f1, f2):
        del f1
    try:
        pass
    except Exception as exc:
        pass
    import json, xml.dom
    from os import sep as s2
    return x, y, s2


def posonly(a, b, /, c, *, d):
    return a


def closures():
    x = 1
    y = 2

    def inner(z):
        nonlocal y
        y = z + x
        return lambda q: q + x + z + g

    class K:
        x = 3
        w = y

        def m(self):
            return x + w

    return inner, K


def uses_global():
    global g
    g = 2
    h = [g for _ in range(3)]
    return h


def comprehensions(n):
    a = [i * n for i in range(n) if i % 2]
    b = {i: j for i in range(n) for j in range(i)}
    c = {k for k in a}
    d = (m + n for m in a)
    e = [[u + v for u in range(v)] for v in range(n)]
    return a, b, c, d, e


def walrus(data):
    if (n := len(data)) > 3:
        pass
    vals = [y for x in data if (y := x * 2)]
    return n, vals, y


def generator(n):
    for i in range(n):
        yield i
    yield from range(n)


class WithSuper(OD):
    attr = 1

    def method(self):
        return super().method() + self.attr

    def dunder(self):
        return __class__

    @staticmethod
    def nested():
        def f():
            return super
        return f


def deep():
    a = 1

    def mid():
        def inner():
            return a
        return inner
    return mid


def annotated(x: int, *ys: str, **kw: "K") -> float:
    z: int = 1
    w: str
    return z


def shadow(x):
    def f():
        x = 2
        return x
    return f


def default_scope(a=lambda: g, b=[v for v in range(2)]):
    return a, b


lam = lambda x, *y, z=1, **w: (x, y, z, w)
top = [t for t in range(3)]
