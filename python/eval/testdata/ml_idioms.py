# What ML scripts use: class hooks (__init_subclass__, properties, classmethods),
# generators (yield from's value), formatting, collections (defaultdict,
# OrderedDict, Counter, namedtuple, deque), itertools, functools.wraps, math.
import math, itertools, functools, collections, os, random, time
from collections import defaultdict, OrderedDict, Counter, namedtuple, deque
from functools import partial, reduce, lru_cache, wraps

class Base:
    registry = {}
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        Base.registry[cls.__name__] = cls
    def __init__(self, name):
        self._name = name
    @property
    def name(self):
        return self._name.upper()
    @name.setter
    def name(self, v):
        self._name = v
    @classmethod
    def make(cls, n):
        return cls(n)
    @staticmethod
    def helper(x):
        return x * 2
    def __repr__(self):
        return f'{type(self).__name__}({self._name!r})'

class Child(Base):
    def __init__(self, name, depth=1):
        super().__init__(name)
        self.depth = depth
    def __lt__(self, other):
        return self.depth < other.depth

c = Child.make('abc')
c.name = 'zzz'
print(c, c.name, Base.helper(4), sorted(Base.registry), isinstance(c, Base))
print(sorted([Child('a', 3), Child('b', 1), Child('c', 2)]))

def gen(n):
    for i in range(n):
        yield i * i
    return 'done'
g = gen(3)
print(list(g), sum(gen(5)), next(gen(2)), [x for x in gen(4) if x % 2 == 0])
def deleg():
    r = yield from gen(2)
    print('got', r)
print(list(deleg()))
sq = {k: v for k, v in zip('abc', range(3))}
print(sq, {x % 3 for x in range(10)}, [(i, j) for i in range(2) for j in range(i, 3)])

def counter():
    n = 0
    def inc():
        nonlocal n
        n += 1
        return n
    return inc
inc = counter(); inc(); print(inc())

loss = 0.123456789
lr = 3e-4
step = 42
print(f'{loss:.4f} {lr:.2e} {lr:g} {step:05d} {step:>8} {step:<8}| {loss:10.3f} {0.5:.1%} {1234567:,} {1234567.891:,.2f} {255:x} {255:#b} {-3.5:+.1f}')
print('%.3f %5d %-5s| %e %g %r' % (loss, step, 'ab', lr, 1e-10, 'x'))
print('{:>10.2f}|{:^7}|{!r}|{x}'.format(3.14159, 'mid', 'q', x=5))
print(f'{"nested":{"^"}{12}}', f'{step=}', f'{loss=:.2f}')

for i, (a, b) in enumerate(zip([1, 2, 3], 'xyz'), start=1):
    print(i, a, b, end='; ')
print()
words = ['banana', 'Apple', 'cherry', 'date']
print(sorted(words, key=str.lower), min(words, key=len), max(words, key=lambda w: w[-1]), sorted(words, key=len, reverse=True))
print(max([], default=None), min(3, 1, 2), max((1, 'b'), (1, 'a')))

dd = defaultdict(list)
for w in words:
    dd[len(w)].append(w)
print(dd, dict(dd), dd[99])
od = OrderedDict(a=1, b=2)
od.move_to_end('a')
print(od, list(od.keys()))
od.popitem(last=False)
print(od)
cnt = Counter('abracadabra')
print(cnt.most_common(2), cnt['a'], cnt['z'], sum(cnt.values()), cnt)
Point = namedtuple('Point', ['x', 'y'])
p = Point(1, y=2)
print(p, p.x, p._asdict(), p._replace(x=5), Point._fields, tuple(p))
dq = deque([1, 2, 3], maxlen=3)
dq.append(4); dq.appendleft(0)
print(dq, dq[0], len(dq))
dq.rotate(1)
print(dq)
print(list(itertools.chain([1], [2, 3])), list(itertools.product('ab', repeat=2)), list(itertools.islice(itertools.count(5), 3)))
print(list(itertools.accumulate([1, 2, 3])), list(itertools.combinations(range(4), 2))[:3], [(k, list(g)) for k, g in itertools.groupby('aabbc')])
print(list(itertools.zip_longest('ab', 'xyz', fillvalue='-')), list(itertools.permutations([1, 2, 3], 2))[:2], list(itertools.repeat(7, 2)))
add = partial(lambda a, b, c=0: a + b + c, 1, c=10)
print(add(2), reduce(lambda a, b: a * b, range(1, 6)), reduce(lambda a, b: a + b, [], 0))
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(30), fib.cache_info())
def deco(f):
    @wraps(f)
    def w(*a, **k):
        return f(*a, **k)
    return w
@deco
def documented():
    "doc"
print(documented.__name__, documented.__doc__)
print(math.sqrt(2), math.floor(-2.5), math.ceil(2.1), math.log(100, 10), math.pi, math.inf, math.isclose(0.1 + 0.2, 0.3), math.prod([1, 2, 3]), math.gcd(12, 18), math.exp(1), math.cos(0), math.log2(8), math.isnan(float('nan')))
print(math.gcd(12, 18), math.gcd(), math.lcm(4, 6), math.factorial(10), math.isqrt(17), math.comb(5, 2), math.perm(5, 2), math.perm(4))
print(math.atan2(1, 1), math.hypot(3, 4), math.copysign(2, -0.0), math.fmod(7, 3), math.pow(2, 10), math.isfinite(1.0), math.isinf(-math.inf))
print(math.degrees(math.pi), math.radians(180), math.tan(0.5), math.erf(0.5), math.expm1(1e-10), math.log1p(1e-10))
for f in [lambda: math.factorial(-1), lambda: math.pow(0, -1), lambda: math.pow(10, 400), lambda: math.sqrt(-1), lambda: math.gcd(1.5)]:
    try:
        print(f())
    except (ValueError, OverflowError, TypeError) as e:
        print(type(e).__name__, e)
dd = defaultdict(int)
for w in 'the cat the hat'.split():
    dd[w] += 1
print(dd, dd.default_factory, 'zz' in dd, dd.get('zz'), len(dd))
nested = defaultdict(lambda: defaultdict(list))
nested['a']['b'].append(1)
print(dict(nested['a']), isinstance(dd, dict), defaultdict(None).default_factory)
try:
    defaultdict(None)['x']
except KeyError as e:
    print('KeyError', e)
try:
    defaultdict(3)
except TypeError as e:
    print('TypeError', e)
od = OrderedDict([('x', 1), ('y', 2), ('z', 3)])
od.move_to_end('x'); od.move_to_end('z', last=False)
print(od, od.popitem(), od.popitem(last=False), od, OrderedDict(), OrderedDict(a=1) == OrderedDict(a=1), OrderedDict(a=1, b=2) == OrderedDict(b=2, a=1), OrderedDict(a=1, b=2) == {'b': 2, 'a': 1})
# an OrderedDict's views are CPython's odict_ subclasses of the dict's
od = OrderedDict(a=1, b=2)
print(od.keys(), od.values(), od.items(), dict.keys(od), type(od.items()).__mro__)
print(isinstance(od.keys(), type({}.keys())), len(od.values()), 'a' in od.keys(), od.keys() & {'a'}, list(reversed(od.items())))
c = Counter(['a', 'b', 'a', 'c', 'a', 'b'])
c.update('zz')
c.update({'a': 10})
print(c, c.most_common(1), c['q'], 'q' in c, c.total(), sorted(c.elements())[:5])
d = Counter(a=3, b=1)
e = Counter(a=1, b=2)
print(d + e, d - e, d | e, d & e, Counter(), Counter('') == Counter())
d.subtract(a=5)
print(d)
P = namedtuple('P', 'x y')
Q = namedtuple('Q', ['a', 'b', 'c'], defaults=[0, 9])
p = P(1, 2)
q = Q(5)
print(p, q, Q._field_defaults, P._make([3, 4]), p._replace(y=7), p == (1, 2), hash(p) == hash((1, 2)), p + (3,), p[1], p.y, len(p))
x, y = p
print(x, y, type(p).__name__, isinstance(p, tuple), P.__name__, repr(P)[:20], dict(p._asdict()))
for bad in [lambda: P(1), lambda: P(1, 2, 3), lambda: P(1, z=2), lambda: namedtuple('R', 'a a'), lambda: namedtuple('R', '_a'), lambda: namedtuple('R', 'a 1b'), lambda: P._make([1])]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
dq = deque(range(5), maxlen=4)
dq.rotate(-1); print(dq, dq.maxlen)
dq.extend([7, 8]); dq.extendleft([0]); print(dq, dq.count(7), dq.index(7))
dq.remove(7); dq.reverse(); print(dq, deque([1, 2]) == deque([1, 2]), deque(), deque([1]).copy())
print(list(itertools.chain([1], (2, 3))), list(itertools.chain.from_iterable(['ab', 'c'])), list(itertools.product('ab', repeat=2)), list(itertools.islice(itertools.count(5), 3)))
print(list(itertools.accumulate([1, 2, 3])), list(itertools.accumulate([1, 2, 3], lambda a, b: a * b, initial=10)), list(itertools.combinations(range(4), 2)), [(k, list(g)) for k, g in itertools.groupby('aabbca')])
print(list(itertools.zip_longest('ab', 'xyz', fillvalue='-')), list(itertools.permutations([1, 2, 3], 2)), list(itertools.repeat(7, 2)), list(itertools.combinations_with_replacement('ab', 2)))
print(list(itertools.takewhile(lambda v: v < 3, [1, 2, 5, 1])), list(itertools.dropwhile(lambda v: v < 3, [1, 2, 5, 1])), list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.compress('abc', [1, 0, 1])), list(itertools.pairwise('abc')), list(itertools.islice(itertools.cycle('ab'), 5)), list(itertools.filterfalse(None, [0, 1, '', 'x'])))
print([(k, len(list(g))) for k, g in itertools.groupby(sorted(['bb', 'a', 'cc', 'd']), key=len)])
def deco(f):
    @functools.wraps(f)
    def w(*a, **k):
        return f(*a, **k)
    return w
@deco
def documented():
    "doc"
print(documented.__name__, documented.__doc__, documented.__wrapped__.__name__, deco.__doc__)
class WithDoc:
    "class doc"
class NoDoc:
    pass
print(WithDoc.__doc__, NoDoc.__doc__)
class Plugin:
    def __init_subclass__(cls, kind=None, **kw):
        super().__init_subclass__(**kw)
        cls.kind = kind
class Tok(Plugin, kind='tokenizer'):
    pass
print(Tok.kind)
try:
    class Bad(Plugin, other=1):
        pass
except TypeError as e:
    print(e)
