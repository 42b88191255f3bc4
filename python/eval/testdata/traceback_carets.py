# Traceback carets as CPython 3.11 places them: ~ under an operator's
# operands and ^ under the operator, ~ under a subscripted value and ^ under
# its brackets; the traceback module and the interpreter's own printing differ
# after a parenthesised operand (the last, uncaught, error).
def run(f):
    try:
        f()
    except Exception:
        import traceback
        print(traceback.format_exc())
d = {'a': 1}
xs = [1, 2]
def f1():
    return 1/0
def f2():
    y = d['missing']
def f3():
    return xs[5] + 1
def f4():
    return (xs[0]) // (0)
def f5():
    z = len(xs) + 'a'
def f6():
    return d['a']['b']
def f7():
    return int('x')
def f8():
    x = 1
    return x ** -1.5 * d[x]
def f9():
    return xs[1:2][3]
for f in [f1, f2, f3, f4, f5, f6, f7, f8, f9]:
    run(f)
import traceback
a, b = 1, 0
def f(): return a // b
def g(): return (a) // b
def h(): return (a)//b
for fn in (f, g, h):
    try:
        fn()
    except Exception:
        print(traceback.format_exc().splitlines()[-3:-1])
def g2():
    return (a) // b
g2()
