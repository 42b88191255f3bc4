# Subclasses of list, dict, str, int, float and tuple: overrides, super(),
# the built-in behaviour under them, copies, and when their items die.
class L(list):
    def __init__(self, *a):
        super().__init__(*a)
        self.tag = 'x'
    def append(self, v):
        print('append', v)
        super().append(v * 2)
    def __getitem__(self, i):
        print('get', i)
        return super().__getitem__(i)
l = L([1, 2])
l.append(3)
print(l, len(l), l[0], isinstance(l, list), type(l).__name__, l.tag)
print(repr(l), list(l), l + [9], sum(l))
for x in l: print(x)
class D(dict):
    def __missing__(self, k):
        return k * 2
    def __getitem__(self, k):
        print('dget', k)
        return super().__getitem__(k)
d = D(a=1)
print(d['a'], d['zz'], d, isinstance(d, dict), d.get('a'), len(d))
class D2(dict):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.__dict__ = self
a = D2(x=1, y=2)
print(a.x, a['y'], a)
class S(str):
    def shout(self): return self.upper() + '!'
s = S('hi')
print(s, repr(s), s.shout(), s + 'x', isinstance(s, str), type(s + 'x').__name__, s == 'hi', {s: 1})
class I(int):
    def __repr__(self): return 'I(%d)' % int(self)
i = I(5)
print(i, repr(i), i + 1, type(i + 1).__name__, isinstance(i, int), i * 2, str(i))
class T(tuple):
    pass
t = T((1, 2))
print(t, type(t).__name__, t[0], len(t))
class F(float):
    pass
print(F(1.5), F(1.5) + 1)
class Cfg(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__
c = Cfg(lr=0.1)
c.wd = 3
print(c.lr, c, c.wd)
class E(Exception):
    def __init__(self, msg, code):
        super().__init__(msg)
        self.code = code
try:
    raise E('bad', 3)
except E as e:
    print(e, e.code, repr(e))
class OD(dict):
    def __setitem__(self, k, v):
        print('set', k, v)
        super().__setitem__(k, v)
o = OD()
o['a'] = 1
o.update(b=2)
print(o)
print(L.__mro__)
print(issubclass(L, list), L([1]) == [1])
import json, copy
class P(tuple):
    def __new__(cls, x, y):
        return super().__new__(cls, (x, y))
    @property
    def x(self): return self[0]
p = P(1, 2)
print(p, p.x, p + (3,), type(p).__name__, len(p), hash(p) == hash((1, 2)))
a, b = p
print(a, b)
class S(str):
    pass
s = S('a,b')
print(s.split(','), '-'.join([S('x'), 'y']), s.startswith('a'), f'{s:>5}|', '%s!' % s, s * 2, s[1:], 'a' in s)
d = {s: 1}
print(d['a,b'], s in {'a,b'})
class D(dict):
    pass
dd = D(a=1, b=[1, 2])
print(json.dumps(dd), dict(dd), {**dd}, list(dd), sorted(dd), dd == {'a': 1, 'b': [1, 2]})
def f(**kw): return kw
print(f(**dd))
dd2 = copy.copy(dd)
print(type(dd2).__name__, dd2)
dd3 = copy.deepcopy(dd)
print(type(dd3).__name__, dd3, dd3['b'] is dd['b'])
class L(list):
    pass
l = L([3, 1, 2])
l.sort()
print(l, l.pop(), l, l * 2, 2 * l, l == [1, 2], bool(L()), l[::-1], type(l[::-1]).__name__)
l += [5]
print(l, type(l).__name__)
l2 = copy.copy(l)
print(type(l2).__name__, l2)
print(max(l), min(l), sum(l), sorted(l, reverse=True), list(reversed(l)), 5 in l, l.index(5))
class I(int):
    pass
i = I(7)
print(i // 2, i % 3, -i, abs(I(-3)), float(i), int(i), range(i), [0] * i, f'{i:03d}', i == 7, i < 8, round(i), hash(i), {i: 'x'}[7])
class F(float):
    def __repr__(self): return 'F!'
fv = F(2.5)
print(fv, str(fv), fv * 2, f'{fv:.2f}', int(fv), fv > 2)
class C(dict):
    def __init__(self, *args, **kwargs):
        super(C, self).__init__(*args, **kwargs)
        self.__dict__ = self
c = C({'k': 1}, z=2)
c.w = 3
print(c, c.k, c.z, c.w, vars(c) is c)
class Counted(list):
    def __len__(self): return 42
print(len(Counted([1])), bool(Counted()))
class Bad(list):
    def __init__(self, n):
        self.n = n
b = Bad(3)
print(b, b.n, len(b))
print(list.__len__(l), dict.__getitem__(dd, "a"), str.upper(s))
print(isinstance(s, S), type(s) is S, S.__bases__)
print(hasattr([], '__len__'), hasattr([], '__iter__'), hasattr(5, '__add__'))
import gc
class Noisy:
    def __init__(self, n): self.n = n
    def __del__(self): print('del', self.n)
class L2(list):
    pass
l = L2([Noisy(1), Noisy(2)])
l.tag = Noisy(0)
print('drop l')
del l
class AttrDict(dict):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.__dict__ = self
c = AttrDict(x=Noisy(3))
print(c.x.n)
print('drop c')
del c
print('collect')
gc.collect()
print('end')
for f, a in [(str.upper, 5), (list.append, ()), (dict.get, []), (str.join, 3)]:
    try:
        f(a, 1) if f is not str.upper else f(a)
    except TypeError as e:
        print('TypeError', e)
# a built-in type's own dunders, called by name on a subclass's instance
class D3(dict):
    pass
class I3(int):
    pass
class L3(list):
    pass
d3 = D3(a=1)
print(d3.__repr__(), d3.__str__(), I3(5).__repr__(), d3.__eq__({'a': 1}), I3(3).__format__('>4'))
try:
    L3().__init__(1, 2)
except TypeError as e:
    print('TypeError', e)
