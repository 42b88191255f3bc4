# Who owns a call's arguments. A Python function called directly (CALL,
# which CPython inlines: the callee's frame takes the references off the
# caller's stack), as a method, through a bound method, a classmethod, a
# staticmethod, super(), with keywords, or a generator function: a
# temporary argument dies when the callee rebinds or deletes its
# parameter, and the frame's slots go in order at return (parameters
# first). Calls through C keep the caller's reference until they return:
# a class call into __init__, *args/**kwargs (the tuple holds them),
# nn.Module's __call__ into forward, a callable object's __call__,
# functools.partial, map, a decorator's *args wrapper, a forward hook.
# A binding error frees an extra positional argument first, then the
# frame. sys.getrefcount inside the callee. `--events`.
import functools
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

MiB = 1 << 20


def used():
    return torch.cuda.memory_allocated() // MiB


def make(mib):
    return torch.empty(mib * MiB // 4, device='cuda')


def rebinds(x):
    before = used()
    x = None
    print(f"rebinds: {before} -> {used()}")


def deletes(x):
    before = used()
    del x
    print(f"deletes: {before} -> {used()}")


kept = make(2)
rebinds(make(4))
deletes(make(4))
rebinds(x=make(4))
rebinds(kept)


class Holder:
    def __init__(self, t):
        before = used()
        t = None
        print(f"__init__: {before} -> {used()}")

    def take(self, x):
        before = used()
        x = None
        print(f"method: {before} -> {used()}")

    def drop_self(self):
        before = used()
        self = None
        print(f"self: {before} -> {used()}")

    @classmethod
    def cm(cls, x):
        before = used()
        x = None
        print(f"classmethod: {before} -> {used()}")

    @staticmethod
    def sm(x):
        before = used()
        x = None
        print(f"staticmethod: {before} -> {used()}")


h = Holder(make(6))
h.take(make(4))
bound = h.take
bound(make(4))
Holder.take(h, make(4))
h.cm(make(4))
Holder.sm(make(4))


class Owner(Holder):
    def __init__(self, t):
        self.t = t


Owner(make(6)).drop_self()


class Derived(Holder):
    def take(self, x):
        super().take(x)
        print(f"after super: {used()}")

    def fresh(self):
        super().take(make(4))


Derived(None).take(make(4))
Derived(None).fresh()
rebinds(*[make(4)])
rebinds(*(make(4),))
rebinds(**{'x': make(4)})


def varargs(*xs):
    before = used()
    xs = None
    print(f"*args: {before} -> {used()}")


varargs(make(2), make(4))


def varkw(**kw):
    before = used()
    kw = None
    print(f"**kwargs: {before} -> {used()}")


varkw(a=make(2), b=make(4))


class Net(nn.Module):
    def forward(self, x):
        before = used()
        x = None
        print(f"forward: {before} -> {used()}")


net = Net()
net(make(4))
net.forward(make(4))


class Fn:
    def __call__(self, x):
        before = used()
        x = None
        print(f"__call__: {before} -> {used()}")


Fn()(make(4))
functools.partial(rebinds)(make(4))
list(map(rebinds, (make(4) for _ in range(1))))


def star_wrapper(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


def plain_wrapper(f):
    def wrapper(x):
        return f(x)
    return wrapper


star_wrapper(rebinds)(make(4))
plain_wrapper(rebinds)(make(4))


@star_wrapper
def decorated(x):
    before = used()
    x = None
    print(f"decorated: {before} -> {used()}")


decorated(make(4))


class Double(nn.Module):
    def forward(self, x):
        return x * 2


def hook(module, args, out):
    before = used()
    out = None
    args = None
    print(f"forward hook: {before} -> {used()}")


double = Double()
handle = double.register_forward_hook(hook)
double(make(4))
handle.remove()


def gen(x):
    before = used()
    x = None
    print(f"generator: {before} -> {used()}")
    yield 1


it = gen(make(4))
print(f"generator made: {used()}")
next(it)
del it
lam = lambda x: rebinds(x)
lam(make(4))


def order(a, b):
    c = make(6)
    return None


order(make(2), make(4))


def layout(a, *rest, k=None, **kw):
    loc = make(10)


layout(make(2), make(4), k=make(6), z=make(8))
order(make(2), make(4), make(6))
order(make(2), b=make(4), zz=make(6))
order(make(2), a=make(4))
a = torch.ones(512, 1024, device='cuda')
b = torch.ones(512, 1024, device='cuda')


def block(x):
    x = torch.relu(x * 2)
    print(f"block relu: {used()}")
    x = x + 1
    print(f"block add: {used()}")
    return x


torch.cuda.reset_peak_memory_stats()
y = block(a + b)
print(f"block: {used()} {torch.cuda.max_memory_allocated() // MiB}")
del y
lin = nn.Linear(1024, 1024, device='cuda')
lin2 = nn.Linear(1024, 1024, device='cuda')


def mlp(x):
    x = F.relu(lin(x))
    x = lin2(x)
    return x


torch.cuda.reset_peak_memory_stats()
with torch.no_grad():
    y = mlp(a + b)
print(f"mlp: {torch.cuda.memory_allocated()} {torch.cuda.max_memory_allocated()}")
del y


def refs(x):
    print(f"getrefcount: {sys.getrefcount(x)}")


refs(kept)
refs(make(2))
refs(x=kept)


class Counter:
    def count(self, x):
        print(f"getrefcount self {sys.getrefcount(self)} x {sys.getrefcount(x)}")


counter = Counter()
counter.count(kept)
Counter().count(make(2))
print(f"end: {used()}")
