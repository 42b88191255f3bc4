# pow with a modulus, bin/oct/hex, dict union (| and |=, of OrderedDict and
# defaultdict their own type), and everyday expressions.
print(pow(3, 4, 5), pow(2, -1, 7), pow(-3, 3, 5), pow(3, 3, -5), pow(2, 10), pow(2.0, 3), pow(base=2, exp=3, mod=3))
for bad in [lambda: pow(2, 3, 0), lambda: pow(2.0, 3, 5), lambda: pow(2, -1, 4)]:
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print(bin(10), bin(-5), hex(255), hex(0), oct(8), oct(-9), hex(2**70), bin(True))
try:
    hex(1.5)
except TypeError as e:
    print(e)
a = {'x': 1, 'y': 2}
b = {'y': 3, 'z': 4}
c = a | b
a |= {'w': 0}
print(c, a, b | a)
from collections import OrderedDict, defaultdict
print(type(defaultdict(int) | {}).__name__, OrderedDict(a=1) | {'b': 2})
try:
    a | [1]
except TypeError as e:
    print(e)
class Cfg:
    __slots__ = ('a', 'b')
    def __init__(self):
        self.a = 1
c = Cfg()
print(c.a, hasattr(c, 'b'))
x = [1, 2, 3, 4, 5]
x[1:3] = [9]
del x[::2]
print(x, x[::-1], x[-1:], 'abc'[::-1])
print(divmod(-7, 2), pow(3, 4, 5), round(2.5), round(3.5), round(2.675, 2), 7 // -2, -7 % 3, 1e16, 1.0, 1/3, 2**0.5, int(-2.7), float('inf'), 10**20, 0.1 + 0.2)
print(bin(10), hex(255), oct(8), f'{1_000_000:_}', int('0x1f', 16), int('1010', 2), ord('a'), chr(97), abs(-3.5))
if (n := len(x)) > 1:
    print('walrus', n)
print(1 < 2 < 3, 1 < 3 < 2, 'y' if x else 'n', any(v > 8 for v in x), all([]), list(map(str, x)), list(filter(None, [0, 1, 2])))
it = iter([1, 2, 3])
print(next(it), list(it), list(reversed(range(3))), sorted({'b': 1, 'a': 2}.items(), key=lambda kv: kv[1]))
a, *rest = [1, 2, 3]
(p, q), r = (1, 2), 3
print(a, rest, p, q, r, [*rest, *'ab'], {**{'a': 1}, 'b': 2})
g = (i * i for i in range(3))
print(sum(g), sum(g))
print(isinstance(3, (int, float)), type(3) is int, getattr(c, 'zz', 'default'), callable(len), str(None), repr(1.5), str([1, 'a']), repr('it\'s'))
def kw_only(*, a, b=2): return a + b
print(kw_only(a=1), (lambda *a, **k: (a, k))(1, x=2))
s = 'Hello, World'
print(s.lower().count('l'), s.find('World'), s.split(', '), '-'.join(reversed(s.split(', '))), s.startswith(('He', 'x')), f'{s!r:>20}', s.center(20, '*'))
print('%5.1f%%' % 99.44, '{:.3e}'.format(12345.678), '{:,}'.format(10**6), '{:08.3f}'.format(-3.14159), format(0.000012345, '.3g'), format(123456789, 'e'))
matrix = [[1, 2], [3, 4]]
print([list(row) for row in zip(*matrix)], [[r[i] for r in matrix] for i in range(2)], sum(matrix, []))
d = {}
d.setdefault('k', []).append(1)
print(d, d.pop('zz', None), dict.fromkeys('ab', 0), {k: v for k, v in sorted(d.items())}, list(d.items())[0], d | {'z': 1})
print(max(range(10), key=lambda i: -abs(i - 4)), min([3, 1, 2], default=0), sorted([3, 1, 2], reverse=True), list(enumerate('ab')))
global_counter = 0
def bump():
    global global_counter
    global_counter += 1
bump(); bump()
print(global_counter)
class P:
    def __init__(self, v): self.v = v
    def __add__(self, o): return P(self.v + o.v)
    def __radd__(self, o): return P(self.v + o)
    def __repr__(self): return f'P({self.v})'
    def __eq__(self, o): return isinstance(o, P) and self.v == o.v
    def __hash__(self): return hash(self.v)
    def __len__(self): return self.v
    def __bool__(self): return self.v > 0
    def __getitem__(self, i):
        if i >= self.v: raise IndexError
        return i
    def __call__(self, k): return self.v * k
    def __contains__(self, k): return k == 42
print(P(1) + P(2), sum([P(1), P(2)]), P(3) == P(3), {P(1), P(1)}, len(P(4)), bool(P(0)), list(P(3)), P(2)(5), 42 in P(1))
import itertools, operator, heapq, logging
for bad in [lambda: pow(2, 3, 'x'), lambda: list(itertools.combinations('ab', -1)), lambda: operator.itemgetter()(5),
            lambda: heapq.heappop([]), lambda: {}.keys() & 5, lambda: {}.keys() | 5, lambda: logging.LogRecord()]:
    try:
        bad()
    except (TypeError, ValueError, IndexError) as e:
        print(type(e).__name__, e)
class A:
    def f(self, x):
        def inner(y):
            pass
        inner()
try:
    A().f()
except TypeError as e:
    print(e)
try:
    A().f(1)
except TypeError as e:
    print(e)
