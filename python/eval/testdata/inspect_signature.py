import inspect
def f(a, b=2, *c, d, e=5, **g): pass
class K:
    def __init__(self, x, y=None): pass
print(inspect.signature(f))
print(inspect.signature(K))
print(list(inspect.signature(f).parameters))
print(inspect.signature(f).parameters['b'].default, inspect.signature(f).parameters['d'].default is inspect.Parameter.empty)
print(inspect.isclass(K), inspect.isfunction(f), inspect.isfunction(K))
def h(a, /, b): pass
print(inspect.signature(h), repr(inspect.signature(h).parameters['a']))
print(inspect.signature(lambda x, *, y=1: 0))
class Opt:
    def __init__(self, params, lr=1e-3, *, fused=None):
        self.params = params
print('fused' in inspect.signature(Opt).parameters, inspect.signature(Opt))
try:
    inspect.signature(3)
except TypeError as e:
    print('TypeError')
except ValueError as e:
    print('ValueError')
