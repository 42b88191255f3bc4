package eval

import (
	"sort"
	"strings"
)

// Small standard modules written in Python: abc (ABC and abstractmethod;
// the instantiation check is construct's), types.SimpleNamespace,
// operator, heapq, bisect and string's constants.
func (in *Interp) installPythonModules() {
	for name, src := range map[string]string{"abc": abcSource, "types": typesSource, "operator": operatorSource,
		"heapq": heapqSource, "bisect": bisectSource, "string": stringSource} {
		in.RegisterModule(name, func(in *Interp) (*ModuleObj, error) { return in.pythonModule(name, src) })
	}
}

const abcSource = `
def abstractmethod(funcobj):
    funcobj.__isabstractmethod__ = True
    return funcobj


class ABCMeta(type):
    pass


def _abstracts(cls):
    names = set()
    for k in cls.__mro__:
        for name in k.__dict__:
            if getattr(getattr(cls, name, None), '__isabstractmethod__', False):
                names.add(name)
    return frozenset(names)


class ABC:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__abstractmethods__ = _abstracts(cls)


ABC.__abstractmethods__ = frozenset()
`

const typesSource = `
class SimpleNamespace:
    def __init__(self, mapping_or_iterable=(), /, **kwargs):
        for k, v in dict(mapping_or_iterable).items():
            setattr(self, k, v)
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __repr__(self):
        return 'namespace(' + ', '.join(f'{k}={v!r}' for k, v in self.__dict__.items()) + ')'

    def __eq__(self, other):
        if not isinstance(other, SimpleNamespace):
            return NotImplemented
        return self.__dict__ == other.__dict__
`

const operatorSource = `
def itemgetter(*items):
    if not items:
        raise TypeError('itemgetter expected 1 argument, got 0')
    if len(items) == 1:
        item = items[0]
        return lambda obj: obj[item]
    return lambda obj: tuple(obj[i] for i in items)


def _resolve(obj, attr):
    for name in attr.split('.'):
        obj = getattr(obj, name)
    return obj


def attrgetter(*attrs):
    if not attrs:
        raise TypeError('attrgetter expected 1 argument, got 0')
    if len(attrs) == 1:
        attr = attrs[0]
        return lambda obj: _resolve(obj, attr)
    return lambda obj: tuple(_resolve(obj, a) for a in attrs)


def methodcaller(name, /, *args, **kwargs):
    return lambda obj: getattr(obj, name)(*args, **kwargs)


def add(a, b): return a + b
def sub(a, b): return a - b
def mul(a, b): return a * b
def truediv(a, b): return a / b
def floordiv(a, b): return a // b
def mod(a, b): return a % b
def pow(a, b): return a ** b
def neg(a): return -a
def eq(a, b): return a == b
def ne(a, b): return a != b
def lt(a, b): return a < b
def le(a, b): return a <= b
def gt(a, b): return a > b
def ge(a, b): return a >= b
def not_(a): return not a
def truth(a): return bool(a)
def getitem(a, b): return a[b]
def contains(a, b): return b in a
def and_(a, b): return a & b
def or_(a, b): return a | b
def matmul(a, b): return a @ b
def index(a): return a.__index__()
`

const heapqSource = `
def _down(heap, start, pos):
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
            continue
        break
    heap[pos] = item


def _up(heap, pos):
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _down(heap, start, pos)


def heappush(heap, item):
    heap.append(item)
    _down(heap, 0, len(heap) - 1)


def heappop(heap):
    if not heap:
        raise IndexError('index out of range')
    last = heap.pop()
    if heap:
        item = heap[0]
        heap[0] = last
        _up(heap, 0)
        return item
    return last


def heapify(x):
    for i in reversed(range(len(x) // 2)):
        _up(x, i)


def heappushpop(heap, item):
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        _up(heap, 0)
    return item


def heapreplace(heap, item):
    top = heap[0]
    heap[0] = item
    _up(heap, 0)
    return top


def nlargest(n, iterable, key=None):
    return sorted(iterable, key=key, reverse=True)[:n]


def nsmallest(n, iterable, key=None):
    return sorted(iterable, key=key)[:n]
`

const bisectSource = `
def bisect_left(a, x, lo=0, hi=None, *, key=None):
    if lo < 0:
        raise ValueError('lo must be non-negative')
    hi = len(a) if hi is None else hi
    while lo < hi:
        mid = (lo + hi) // 2
        if (a[mid] if key is None else key(a[mid])) < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def bisect_right(a, x, lo=0, hi=None, *, key=None):
    if lo < 0:
        raise ValueError('lo must be non-negative')
    hi = len(a) if hi is None else hi
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


bisect = bisect_right


def insort_left(a, x, lo=0, hi=None, *, key=None):
    a.insert(bisect_left(a, x if key is None else key(x), lo, hi, key=key), x)


def insort_right(a, x, lo=0, hi=None, *, key=None):
    a.insert(bisect_right(a, x if key is None else key(x), lo, hi, key=key), x)


insort = insort_right
`

const stringSource = `
whitespace = ' \t\n\r\v\f'
ascii_lowercase = 'abcdefghijklmnopqrstuvwxyz'
ascii_uppercase = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
ascii_letters = ascii_lowercase + ascii_uppercase
digits = '0123456789'
hexdigits = digits + 'abcdef' + 'ABCDEF'
octdigits = '01234567'
punctuation = r"""!"#$%&'()*+,-./:;<=>?@[\]^_` + "`" + `{|}~"""
printable = digits + ascii_letters + punctuation + whitespace
`

// checkAbstract is the TypeError for making an instance of a class
// whose __abstractmethods__ (abc.ABC's) are not all overridden.
func (in *Interp) checkAbstract(cls *Class) error {
	s, ok := cls.lookup("__abstractmethods__").(*Set)
	if !ok || s.d.n == 0 {
		return nil
	}
	var names []string
	for _, e := range s.d.entries {
		if n, isStr := e.key.(string); isStr && !e.del {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	plural := ""
	if len(names) > 1 {
		plural = "s"
	}
	return in.typeError("Can't instantiate abstract class %s with abstract method%s %s", cls.Name, plural, strings.Join(names, ", "))
}
