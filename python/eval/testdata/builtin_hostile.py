# Hostile uses of the built-in types' methods and subclasses: CPython's
# TypeErrors (descriptors on the wrong type, object.__new__ of a list
# subclass, lay-out conflicts), __index__ returning self, self-holding
# containers; none of them an internal error.
class L(list):
    pass
class D(dict):
    pass
tests = [
    lambda: list.__init__(5),
    lambda: list.__init__(D(), [1]),
    lambda: dict.__init__([], a=1),
    lambda: object.__new__(L),
    lambda: str.upper(L()),
    lambda: int.__add__('a', 1),
    lambda: L.__new__(5),
    lambda: list.__new__(D),
]
for t in tests:
    try:
        print(repr(t()))
    except Exception as e:
        print(type(e).__name__ + ':', e)
try:
    class X1(list, dict):
        pass
except TypeError as e:
    print('TypeError:', e)
try:
    class X2(int, str):
        pass
except TypeError as e:
    print('TypeError:', e)
try:
    class X3(ValueError, L):
        pass
except TypeError as e:
    print('TypeError:', e)
class B2(int):
    pass
class X4(B2, int):
    pass
print(X4(3) + 1, X4.__mro__)
class I(int):
    def __index__(self):
        return self
try:
    print([1, 2, 3][I(1)])
except Exception as e:
    print(type(e).__name__ + ':', e)
class Rec(list):
    def __len__(self):
        return len(self)
try:
    len(Rec())
except RecursionError:
    print('RecursionError')
l = L([1])
l.append(l)
d = D(a=1)
d['self'] = d
print(l, d, l == l)
class S(str):
    def __str__(self):
        return S('via S')
print(str(S('x')), '%s' % S('y'))
try:
    l.__dict__ = 5
except TypeError as e:
    print('TypeError:', e)
try:
    L().__dict__ = L()
except TypeError as e:
    print('TypeError:', e)
class T(tuple):
    def __new__(cls):
        return super().__new__(cls, [1, 2])
print(T(), T() == (1, 2), hash(T()) == hash((1, 2)))
import copy, json
print(copy.deepcopy(l)[0], json.dumps(D(x=[1])), json.dumps(L([1, S('s')])), sorted(D(b=1, a=2)), max(L([3, 9, 2])))
