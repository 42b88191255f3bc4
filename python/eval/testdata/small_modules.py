# abc (ABC, abstractmethod and the instantiation check), types.SimpleNamespace,
# operator, heapq, bisect and string's constants.
from abc import ABC, abstractmethod
import abc, types, operator, heapq, bisect, string
class Shape(ABC):
    @abstractmethod
    def area(self): ...
    @abstractmethod
    def perimeter(self): ...
    def describe(self):
        return f'{type(self).__name__} with area {self.area()}'
class Half(Shape):
    def area(self): return 1
class Square(Shape):
    def __init__(self, s): self.s = s
    def area(self): return self.s ** 2
    def perimeter(self): return 4 * self.s
for cls in (Shape, Half):
    try:
        cls()
    except TypeError as e:
        print(e)
print(Square(3).describe(), Square(2).perimeter(), isinstance(Square(1), Shape), Shape.area.__isabstractmethod__)
class Meta(metaclass=abc.ABCMeta):
    pass
print(type(Meta).__name__ if False else 'meta ok', Meta() is not None)
ns = types.SimpleNamespace(lr=0.1, epochs=3)
ns.batch = 32
print(ns, ns.lr, types.SimpleNamespace(a=1) == types.SimpleNamespace(a=1), vars(ns))
rows = [('b', 2), ('a', 3), ('c', 1)]
print(sorted(rows, key=operator.itemgetter(1)), operator.itemgetter(0, 1)('xy'), operator.attrgetter('lr')(ns), operator.methodcaller('upper')('q'), operator.add(2, 3), operator.mul('a', 3))
h = []
for v in [5, 1, 4, 2, 3]:
    heapq.heappush(h, v)
print(h, heapq.heappop(h), h, heapq.nlargest(2, [5, 1, 9]), heapq.nsmallest(2, [(2, 'b'), (1, 'a'), (3, 'c')]))
l = [9, 3, 7, 1]
heapq.heapify(l)
print(l, heapq.heappushpop(l, 0), heapq.heapreplace(l, 10), l)
xs = [1, 3, 3, 7]
print(bisect.bisect_left(xs, 3), bisect.bisect_right(xs, 3), bisect.bisect(xs, 0))
bisect.insort(xs, 4)
print(xs, string.ascii_lowercase, string.digits, string.punctuation, repr(string.whitespace), len(string.printable))
