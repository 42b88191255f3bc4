# Who owns a call's arguments, shown by __del__ (CPython 3.12.3's output:
# scripts/eval_golden.sh leaves this one out). CALL moves them into a
# Python callee's frame; CALL_FUNCTION_EX (*args, **kwargs, more than 30
# argument slots) gives the callee references of its own and drops its
# tuple and dict before the body runs; calls through C keep the caller's
# reference until they return. Binding errors: what goes when, and
# CPython's texts.
import sys, functools

class T:
    def __init__(self, name):
        self.name = name
    def __del__(self):
        print("  free", self.name)

def rebinds(x):
    print("  in rebinds")
    x = None
    print("  rebound")

def deletes(x):
    del x
    print("  deleted")

def counts(x):
    print("  refcount", sys.getrefcount(x))

print("direct call")
rebinds(T("direct"))
deletes(T("del"))
print("keyword")
rebinds(x=T("kw"))
print("refcounts")
counts(T("temp"))
g = T("global")
counts(g)
counts(x=g)

class C:
    def m(self, x):
        x = None
        print("  method rebound")
    def cnt(self, x):
        print("  refcount self", sys.getrefcount(self), "x", sys.getrefcount(x))
    @classmethod
    def cm(cls, x):
        x = None
        print("  classmethod rebound")
    @staticmethod
    def sm(x):
        x = None
        print("  staticmethod rebound")
    def selfdrop(self):
        self = None
        print("  self dropped")

c = C()
print("method")
c.m(T("method"))
c.cnt(g)
print("bound method object")
bm = c.m
bm(T("bound"))
print("classmethod, staticmethod")
c.cm(T("cm"))
C.sm(T("sm"))
C.m(c, T("unbound"))
print("temporary self")
class S(C):
    def __del__(self):
        print("  free S")
S().selfdrop()
S().cnt(g)

print("class call")
class Init:
    def __init__(self, x):
        x = None
        print("  init rebound")
Init(T("init"))

print("star args")
args = (T("in tuple"),)
rebinds(*args)
del args
rebinds(*[T("star list")])
rebinds(**{"x": T("star dict")})

print("varargs callee")
def va(*xs):
    xs = None
    print("  varargs rebound")
va(T("va1"), T("va2"))
def vk(**kw):
    kw = None
    print("  kwargs rebound")
vk(a=T("vk"))

print("callable object")
class Call:
    def __call__(self, x):
        x = None
        print("  __call__ rebound")
Call()(T("__call__"))

print("builtins calling back")
list(map(rebinds, [T("map")]))
sorted([T("s1")], key=lambda x: (rebinds(x), 0)[1])
p = functools.partial(rebinds)
p(T("partial"))
def deco(f):
    def wrapper(*a, **k):
        return f(*a, **k)
    return wrapper
@deco
def decorated(x):
    x = None
    print("  decorated rebound")
decorated(T("decorated"))

print("generator")
def gen(x):
    x = None
    print("  gen rebound")
    yield 1
it = gen(T("gen"))
print("  made")
next(it)
print("  after next")
del it

print("lambda and nested")
lam = lambda x: (counts(x), None)[1]
lam(T("lambda"))
def outer(y):
    def inner(x):
        x = None
        print("  inner rebound")
    inner(y)
    print("  outer after")
outer(T("outer"))

print("super")
class Base:
    def f(self, x):
        x = None
        print("  base rebound")
class D(Base):
    def f(self, x):
        super().f(x)
        print("  D after super")
    def g(self, x):
        return super().f(x)
D().f(T("super"))
D().g(T("super g"))

print("order of return")
def two(a, b):
    c = T("local c")
    return None
two(T("arg a"), T("arg b"))
def argsfirst(a, *r, k=None, **kw):
    loc = T("loc")
two(T("p1"), b=T("p2"))
argsfirst(T("a1"), T("r1"), k=T("k1"), z=T("z1"))
print("default")
def dflt(x=T("default")):
    x = None
    print("  default rebound")
dflt()
print("exception while binding")
try:
    two(T("extra1"), T("extra2"), T("extra3"))
except TypeError as e:
    print(" ", e)
print("release order after a call through C")
def sink(*a, **k):
    pass
functools.partial(sink, T("partial holds"))(T("partial arg"))
sink(*[T("star a"), T("star b")])
sink(T("pos a"), *[T("star c")], **{"k1": T("kw 1"), "k2": T("kw 2")})
print(T("print a").name, T("print b").name)
def noop(x):
    pass
noop(T("direct arg"))
print("arguments past 30 slots go through a tuple")
def many(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, a1, b1, c1, d1, e1):
    a = None
    print("  many rebound")
many(T("first of 31"), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31)
def thirty(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z, a1, b1, c1, d1):
    a = None
    print("  thirty rebound")
thirty(T("first of 30"), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30)
print("more binding errors")
try:
    two(T("kw a"), b=T("kw b"), zz=T("kw zz"), yy=T("kw yy"))
except TypeError as e:
    print(" ", e)
try:
    two(T("dup a"), a=T("dup kw"))
except TypeError as e:
    print(" ", e)
try:
    two(T("missing b"))
except TypeError as e:
    print(" ", e)
def kwonly(a, *, k):
    pass
try:
    kwonly(T("ko 1"), T("ko 2"), k=T("ko k"))
except TypeError as e:
    print(" ", e)
del g, c, bm, p, S, D, Base, C, dflt
print("a bound method past 30 argument slots goes through a tuple")
class Wide:
    def m(self, a, b, c, d, e, f, g, h, i, j, k, l, m, n, *, k1, k2, k3, k4, k5, k6, k7, k8):
        a = None
        print("  wide rebound")
    def m15(self, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, *, k1, k2, k3, k4, k5, k6, k7, k8):
        a = None
        print("  wider rebound")
wm = Wide().m
wm(T("14 and 8 keywords"), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8)
wm = Wide().m15
wm(T("15 and 8 keywords"), 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, k1=1, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8)
del wm
print("a bound method and a generator through *args")
class Star:
    def m(self, x):
        x = None
        print("  bound star rebound")
bm2 = Star().m
bm2(*[T("bound star")])
del bm2
def gen_star(x):
    x = None
    print("  gen_star rebound")
    yield 1
next(gen_star(*[T("gen star")]))
print("keyword errors")
def f(a, b, /, c): pass
try: f(1, b=2, c=3)
except TypeError as e: print('f(1, b=2, c=3)', '->', e)
try: f(1, 2, 3, a=1, b=2)
except TypeError as e: print('f(1, 2, 3, a=1, b=2)', '->', e)
try: f(a=1, b=2, c=3)
except TypeError as e: print('f(a=1, b=2, c=3)', '->', e)
try: f(1,2,3,zz=1)
except TypeError as e: print('f(1,2,3,zz=1)', '->', e)
try: f(1,2,3,4,zz=1)
except TypeError as e: print('f(1,2,3,4,zz=1)', '->', e)
def g(a, *, k, m=1): pass
try: g(1, 2, k=3)
except TypeError as e: print('g(1, 2, k=3)', '->', e)
try: g(1, 2, k=3, m=4)
except TypeError as e: print('g(1, 2, k=3, m=4)', '->', e)
try: g(1,2)
except TypeError as e: print('g(1,2)', '->', e)
try: g(1, 2, 3)
except TypeError as e: print('g(1, 2, 3)', '->', e)
try: g(k=1)
except TypeError as e: print('g(k=1)', '->', e)
try: g(1)
except TypeError as e: print('g(1)', '->', e)
def h(a=1, *, k): pass
try: h(1, 2, k=3)
except TypeError as e: print('h(1, 2, k=3)', '->', e)
try: h(1, 2)
except TypeError as e: print('h(1, 2)', '->', e)
print("end")
