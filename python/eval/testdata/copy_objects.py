# copy and deepcopy as CPython runs them, with when each copy dies
import copy


class T:
    def __init__(self, name):
        self.name = name

    def __del__(self):
        print("  free", self.name)


class Box:
    def __init__(self, *items):
        self.items = list(items)
        self.me = self


b = Box(T("a"), [T("b")])
c = copy.copy(b)
print(c.items is b.items, c.me is b)
d = copy.deepcopy(b)
print(d.me is d, d.items is b.items, d.items[0].name, len(d.items))
print("del the deep copy")
del d
print("del the shallow copy")
del c
shared = T("s")
pair = copy.deepcopy([shared, shared, (1, 2), (shared,)])
print(pair[0] is pair[1], pair[2] == (1, 2), pair[3][0] is pair[0])
t = (1, "x", None)
print(copy.deepcopy(t) is t, copy.copy([1, 2]) == [1, 2])


class Custom:
    def __init__(self):
        self.n = 1

    def __deepcopy__(self, memo):
        print("  __deepcopy__ called")
        return Custom()

    def __copy__(self):
        print("  __copy__ called")
        return self


x = Custom()
copy.deepcopy(x)
print(copy.copy(x) is x)


class State:
    def __init__(self):
        self.v = [1]

    def __setstate__(self, state):
        print("  setstate", sorted(state))
        self.__dict__.update(state)


s2 = copy.deepcopy(State())
print(s2.v)
del pair
print("del the originals; the copies' cycles go at collect")
del b, shared
import gc
gc.collect()
print("end")
print("reductions and slots")


class G:
    def __init__(self):
        self.v = 1

    def __getstate__(self):
        return {'v': 99}


print(copy.copy(G()).v, copy.deepcopy(G()).v)


class R2:
    pass


class R:
    def __reduce__(self):
        return (R2, ())


print(type(copy.copy(R())).__name__, type(copy.deepcopy(R())).__name__)


class Slotted:
    __slots__ = ('a', 'b')

    def __init__(self):
        self.a = [1]


sl = Slotted()
t = copy.deepcopy(sl)
print(t.a, t.a is sl.a, hasattr(t, 'b'), hasattr(object(), '__dict__'))
print("containers that hold themselves")
d = {}
d['a'] = d
e = {}
e['a'] = e
try:
    print(d == e)
except RecursionError as x:
    print('RecursionError', x)
