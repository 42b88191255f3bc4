# A function that takes names from its enclosing function holds their
# cells in a tuple of its own (__closure__, made before the function, as
# CPython's BUILD_TUPLE and MAKE_FUNCTION make them), which the
# collector sees among the function's referents and which goes with it.
import gc


def make(a, b):
    def inner():
        return a, b

    return inner


f = make(1, [])
print(type(f.__closure__).__name__, len(f.__closure__), [type(c).__name__ for c in f.__closure__])
print(f.__closure__ is f.__closure__, [c.cell_contents for c in f.__closure__])
print(any(r is f.__closure__ for r in gc.get_referents(f)), make.__closure__)
print(gc.is_tracked(f.__closure__))
