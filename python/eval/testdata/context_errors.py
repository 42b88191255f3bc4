# Context managers (contextlib's suppress, closing, redirect_stdout), exception
# chaining, finally, the messages of common errors, io.StringIO as a stream.
import contextlib, sys
class Timer:
    def __enter__(self):
        print('enter')
        return self
    def __exit__(self, et, ev, tb):
        print('exit', et.__name__ if et else None)
        return et is KeyError
with Timer() as t:
    print('body', type(t).__name__)
with Timer():
    raise KeyError('swallowed')
print('after')
@contextlib.contextmanager
def managed(x):
    print('setup', x)
    try:
        yield x * 2
    finally:
        print('teardown')
with managed(3) as v:
    print('v', v)
try:
    with managed(1):
        raise ValueError('boom')
except ValueError as e:
    print('caught', e)
with contextlib.suppress(ZeroDivisionError):
    1 / 0
print('suppressed')
class MyErr(Exception):
    pass
def f():
    try:
        raise MyErr('inner')
    except MyErr as e:
        raise RuntimeError('outer') from e
try:
    f()
except RuntimeError as e:
    print(repr(e), repr(e.__cause__), e.__context__ is e.__cause__)
try:
    try:
        {}['k']
    except KeyError:
        raise ValueError('during')
except ValueError as e:
    print(repr(e.__context__))
def g():
    try:
        return 'try'
    finally:
        print('finally runs')
print(g())
for i in range(3):
    try:
        if i == 1:
            continue
        print('i', i)
    finally:
        print('fin', i)
else:
    print('loop else')
try:
    raise ValueError('x')
except Exception as e:
    print(type(e).__name__)
e = ValueError('a', 2)
print(e.args, str(e), repr(e), str(KeyError('k')), str(ValueError()))
assert True, 'no'
try:
    assert 1 == 2, 'numbers differ'
except AssertionError as e:
    print('assert', e)
x = [1, 2]
try:
    x[5]
except IndexError as e:
    print(e)
try:
    int('abc')
except ValueError as e:
    print(e)
try:
    None.foo
except AttributeError as e:
    print(e)
try:
    undefined_name
except NameError as e:
    print(e)
try:
    'a' + 1
except TypeError as e:
    print(e)
try:
    len(5)
except TypeError as e:
    print(e)
def h(a, b=2, *args, c, **kw):
    return a, b, args, c, kw
print(h(1, c=3), h(1, 2, 3, 4, c=5, d=6))
try:
    h(1)
except TypeError as e:
    print(e)
try:
    h(1, 2, c=1, a=5)
except TypeError as e:
    print(e)
for a, b in [('a', 1), ([1], (2,)), ((1,), [2]), (b'x', 'y'), ([], None)]:
    try:
        a + b
    except TypeError as e:
        print(e)
import contextlib, io
class Buf:
    def __init__(self): self.parts = []
    def write(self, s): self.parts.append(s)
buf = Buf()
with contextlib.redirect_stdout(buf):
    print('captured')
print(buf.parts)
class Res:
    def close(self): print('closed')
with contextlib.closing(Res()) as r:
    print(type(r).__name__)
s = io.StringIO()
print('a', 1, file=s)
s.write('line2\n')
print(repr(s.getvalue()), s.tell())
s.seek(0)
print(s.readline(), s.read(), list(io.StringIO('x\ny\n')), io.StringIO('abc').read(2))
t = io.StringIO('abc'); t.write('X'); print(t.getvalue())
with io.StringIO() as u:
    u.write('q')
print(u.closed)
import logging
stream = io.StringIO()
lg = logging.getLogger('cap')
lg.addHandler(logging.StreamHandler(stream))
lg.warning('into %s', 'stream')
print(repr(stream.getvalue()))
