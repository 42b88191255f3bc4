# Set operators and methods, frozenset as a key, and dict_keys/dict_items
# views as sets (sets of str are printed sorted: CPython's order is random).
a = {1, 2, 3}; b = {2, 3, 4}
print(a & b, a | b, a - b, a ^ b, a.union(b, [9]), a.intersection(b), a.difference(b), a.symmetric_difference(b))
print(a.issubset(b), a.issuperset({1}), a.isdisjoint(b), a.isdisjoint([7]), a.copy(), frozenset(a) | b, a <= b, sorted(a))
print({frozenset({1, 2}): 'x'}[frozenset([2, 1])], hash(frozenset()) == hash(frozenset([])))
p = {5, 6}
print(p.pop(), p)
c = {1, 2}
c |= {5}; c &= {1, 5}; c -= {1}; c ^= {7}
print(c)
c.intersection_update({5}); print(c)
c.difference_update({5}); print(c)
c.symmetric_difference_update({1}); print(c)
try:
    a & [1]
except TypeError as e:
    print(e)
try:
    set().pop()
except KeyError as e:
    print(repr(e))
f = frozenset([1])
g = f
f |= {2}
print(f, g, f is g)
d = {'a': 1, 'b': 2, 'c': 3}
e = {'b': 20, 'c': 3, 'z': 0}
print(d.keys() == {'a', 'b', 'c'}, d.keys() == {'a'}, {'a', 'b', 'c'} == d.keys(), d.keys() != {'a'})
print(sorted(d.keys() & e.keys()), d.keys() | e.keys() == {'a', 'b', 'c', 'z'}, sorted(d.keys() - e.keys()), sorted(d.keys() ^ e.keys()))
print(d.keys() & {'a', 'q'}, sorted(d.keys() & ['a', 'b']), {'c'} & d.keys(), ['a'] | d.keys() == {'a', 'b', 'c'})
print(d.keys().isdisjoint(e.keys()), d.keys().isdisjoint({'q'}), d.keys().isdisjoint(['a']))
print(d.items() & e.items(), sorted(d.items() - e.items()), d.items() == {('a', 1), ('b', 2), ('c', 3)}, ('a', 1) in d.items(), ('a', 2) in d.items())
print(d.keys() <= {'a', 'b', 'c', 'd'}, d.keys() < {'a', 'b', 'c'}, d.keys() >= {'a'}, d.keys() > {'a'})
print(d.values() == d.values(), len(d.items()), type(d.keys() & e.keys()).__name__)
print(reversed(d.keys()) is not None, list(reversed(d.keys())), list(reversed(d.items())), list(reversed(d.values())))
print(d.keys() == d.keys(), d.items() == e.items(), sorted(d.keys() - set()), sorted(set() | d.keys()))
try:
    d.values() & {1}
except TypeError as ex:
    print(ex)
try:
    d.items() & [[1]]
except TypeError as ex:
    print(ex)
print(d.items() & [[1]], d.items() & [('a', 1), ('b', 5)], d.keys() & iter(['a']))
