def f(a, b, *, c):
    pass
for call in [lambda: f(1), lambda: f(1, 2, 3), lambda: f(1, 2), lambda: f(1, 2, c=3, d=4)]:
    try:
        call()
    except TypeError as e:
        print(e)
try:
    undefined_nme = 1
    print(undefined_name)
except NameError as e:
    print(e)
try:
    [1, 2][5]
except IndexError as e:
    print(e)
try:
    {}["k"]
except KeyError as e:
    print(repr(e), e)
try:
    1 + "a"
except TypeError as e:
    print(e)
try:
    a, b = [1, 2, 3]
except ValueError as e:
    print(e)
try:
    int("x")
except ValueError as e:
    print(e)
try:
    None.foo
except AttributeError as e:
    print(e)
class C:
    pass
try:
    C().bar
except AttributeError as e:
    print(e)
try:
    try:
        raise KeyError("inner")
    except KeyError:
        raise RuntimeError("outer") from None
except RuntimeError as e:
    print(e, e.__cause__, e.__suppress_context__ if hasattr(e, "__suppress_context__") else True)
def deep():
    x = [1]
    return x.missing
def mid():
    return deep()
mid()
