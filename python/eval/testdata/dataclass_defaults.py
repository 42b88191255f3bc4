# dataclasses: repr of an instance that holds itself, unhashable defaults
# (a list subclass, a dataclass with eq) refused, KW_ONLY, InitVar; a class
# with __eq__ and no __hash__ is unhashable.
from dataclasses import dataclass, field, fields, KW_ONLY, InitVar, asdict
import dataclasses
@dataclass
class Node:
    name: str
    children: list = field(default_factory=list)
    parent: 'Node' = None
n = Node('root')
c = Node('kid', parent=n)
n.children.append(c)
print(n)
print(c)
class MyList(list):
    pass
for default in [MyList(), [], {}, set()]:
    try:
        @dataclass
        class Bad:
            x: object = default
    except ValueError as e:
        print('ValueError', e)
@dataclass
class Inner:
    a: int = 0
try:
    @dataclass
    class Outer:
        inner: Inner = Inner()
except ValueError as e:
    print('ValueError', e)
@dataclass(frozen=True)
class FInner:
    a: int = 0
@dataclass
class Outer2:
    inner: FInner = FInner()
print(Outer2())
@dataclass
class Cfg:
    lr: float
    _: KW_ONLY
    epochs: int = 3
    name: str = 'run'
print(Cfg(0.1, epochs=5), [f.name for f in fields(Cfg)], [f.kw_only for f in fields(Cfg)])
try:
    Cfg(0.1, 5)
except TypeError as e:
    print('TypeError', e)
@dataclass
class Scaled:
    x: float
    scale: InitVar[float] = 2.0
    y: float = field(init=False, default=0.0)
    def __post_init__(self, scale):
        self.y = self.x * scale
s = Scaled(3.0)
print(s, Scaled(1.0, 10.0), [f.name for f in fields(Scaled)], asdict(s), hasattr(s, 'scale'), Scaled.scale)
@dataclass
class NoDef:
    z: InitVar[int]
    def __post_init__(self, z):
        print('post', z)
print(NoDef(4))
try:
    NoDef()
except TypeError as e:
    print('TypeError', e)
print(type(InitVar[int]).__name__, repr(InitVar[int]), type(KW_ONLY).__name__)
@dataclass(kw_only=True)
class K:
    a: int
    b: int = 1
print(K(a=2), K(b=3, a=1))
print(object.__hash__ is not None, list.__hash__, dict.__hash__, int.__hash__ is not None)
class A:
    def __eq__(s, o): return True
print(A.__hash__)
try:
    hash(A())
except TypeError as e:
    print(e)
class B:
    pass
print(B.__hash__ is object.__hash__, hash(B()) == hash(B()) or True)
