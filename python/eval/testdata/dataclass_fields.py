from dataclasses import dataclass, field, asdict, astuple, fields, replace, is_dataclass, MISSING
from typing import ClassVar, List

@dataclass
class Cfg:
    n: int = 4
    size: int = 1 << 20
    name: str = "x"
    tags: List[str] = field(default_factory=list)
    count: ClassVar[int] = 0

c = Cfg(n=3)
print(c, c == Cfg(3), Cfg.n, [f.name for f in fields(c)])
print(asdict(c), replace(c, name='y'))

@dataclass
class Batch:
    x: "torch.Tensor"
    y: "torch.Tensor" = None


@dataclass(frozen=True, order=True)
class P:
    a: int
    b: int = 0
p = P(1, 2)
try:
    p.a = 3
except Exception as e:
    print(type(e).__name__, e)
print(P(1) < P(2), hash(p) == hash(P(1, 2)), P.__match_args__)
try:
    Cfg(1, 2, 'a', [], 5)
except TypeError as e:
    print(e)
try:
    P()
except TypeError as e:
    print(e)
try:
    @dataclass
    class Bad:
        a: int = 1
        b: int
except TypeError as e:
    print(e)
try:
    @dataclass
    class Bad2:
        a: list = []
except ValueError as e:
    print(e)
@dataclass
class Child(Cfg):
    extra: float = 1.5
print(Child(extra=2.0))

# when a dataclass's values die (CPython's order, shown by __del__)
class T:
    def __init__(self, name):
        self.name = name
    def __del__(self):
        print("  free", self.name)

@dataclass
class Holder:
    a: object
    b: object = None
    made: list = field(default_factory=lambda: [T("made")])

print("build")
h = Holder(T("a1"), T("b1"))
print("rebind")
h = Holder(T("a2"))
print("del")
del h
print("shared default lives with the class")
@dataclass
class Shared:
    t: object = T("class default")
s1, s2 = Shared(), Shared()
print(s1.t is s2.t is Shared.t)
del s1, s2
print("class deleted")
del Shared
import gc
gc.collect()
print("frozen hash and replace")
@dataclass(frozen=True)
class K:
    x: int
    y: tuple = (1, 2)
print(hash(K(1)) == hash(K(1)), K(1) == K(1), replace(K(1), x=2), astuple(K(3)) if False else None)
try:
    del K(1).x
except Exception as e:
    print(type(e).__name__, e)
print(Holder.__init__.__name__, Holder.__eq__ is not None, Holder.__hash__)
print("end")
