# operator, as gpumemrepl runs it (embedded by pymods.go).
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
