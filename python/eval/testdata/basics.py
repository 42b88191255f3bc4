import gc, sys, math
MB = 1 << 20
x = [1, 2, 3]
print(x, len(x), sum(x), f"{3.14159:.2f}", 1., .5, 1e-3, 10_000, 0x1F)
def f(a, b=2, *args, c=3, **kw):
    return a + b + c + len(args) + len(kw)
print(f(1), f(1, 2, 3, 4, c=5, d=6))
class A:
    def __init__(self, n):
        self.n = n
    def __repr__(self):
        return f"A({self.n})"
    def __del__(self):
        print("del", self.n)
class B(A):
    def __init__(self, n):
        super().__init__(n * 10)
a = A(1)
b = B(2)
print(a, b, isinstance(b, A))
a = None
del b
ys = [i * i for i in range(5) if i % 2 == 0]
print(ys, {k: v for k, v in zip("abc", range(3))}, sum(i for i in range(10)))
try:
    1 / 0
except ZeroDivisionError as e:
    print("caught", e, repr(e))
for i in range(3):
    if i == 1:
        continue
    print(i, end=" ")
else:
    print("done")
d = {"a": 1}
d["b"] = 2
print(d, d.get("c", 5), list(d.items()))
print("%d items, %.1f MiB" % (3, 1.5), "{} and {:>5}".format(1, "x"))
def gen():
    yield 1
    yield 2
print(list(gen()))
print("dict and set comparisons")
s = {1, 2}
print(s == {2, 1}, frozenset([1]) == {1}, {1: 2} == {1: 2}, {1: [1]} != {1: [2]}, s <= {1, 2, 3}, s < {1, 2}, {1} >= set(), {1, 2} > {1}, {} == {}, {1: 2} == {1: 3}, {1: 2} == {2: 2})
print("str ranges")
print('abc'.find('', 3), 'abc'.find('', 4), 'abcabc'.find('b', 2), 'abcabc'.rfind('b', 0, 3), 'aaa'.count('a', 1), 'abc'.startswith('b', 1), 'abc'.endswith('b', 0, 2), 'abc'.find('c', -1), 'abc'.count('', 5), 'abc'.startswith('', 3), 'abc'.startswith('', 4), 'héllo'.find('l', 3), 'abc'.startswith(('x', 'b'), 1))
