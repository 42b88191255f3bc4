# weakref.ref(obj) without a callback hands out obj's one basic
# reference again (CPython's get_basic_refs); with a callback it makes
# a new one each time; all go dead with obj.
import weakref


class A:
    pass


a = A()
r1 = weakref.ref(a)
r2 = weakref.ref(a)
r3 = weakref.ref(a, lambda r: None)
r4 = weakref.ref(a, lambda r: None)
print(r1 is r2, r1 is r3, r3 is r4, r1() is a)
del a
print(r1(), r2(), r3())
