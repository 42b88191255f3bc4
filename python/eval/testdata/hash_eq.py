# Keys of a class with its own __hash__ are matched by __eq__, as CPython's
# dict and set probes do; tuples hash as CPython hashes them.
class A:
    def __init__(self, v):
        self.v = v

    def __eq__(self, o):
        return isinstance(o, A) and self.v == o.v

    def __hash__(self):
        return 7

    def __repr__(self):
        return f"A({self.v})"


print(len({A(1), A(2)}), len({A(1), A(1)}))
d = {A(1): "one", A(2): "two"}
print(len(d), d[A(1)], d[A(2)], A(3) in d)
d[A(1)] = "uno"
print(d)
del d[A(2)]
print(d)
print({A(1), A(2)} & {A(2), A(3)}, {A(1)} <= {A(1), A(2)})
t = {(A(1), 1): "x"}
print(t[(A(1), 1)], (A(2), 1) in t)
print(hash((1, 2)), hash((2, 1)), hash(()), hash((1, (2, 3))))
print(len({(1, 2), (2, 1)}))


class P:
    def __init__(self, v):
        self.v = v

    def __eq__(self, o):
        return self.v == o.v

    def __hash__(self):
        return self.v % 5


# many keys a hash, then most deleted: the dict compacts and still finds them
d = {P(i): i for i in range(100)}
for i in range(100):
    if i % 3:
        del d[P(i)]
print(len(d), sum(d[P(i)] for i in range(0, 100, 3)), P(3) in d, P(4) in d)
d.clear()
d[P(7)] = 1
print(len(d), d[P(7)], P(2) in d)
