"""Print, for every code object that compiling each file (paths on stdin)
makes, except the module's: NAME LINE | co_varnames | co_cellvars |
co_freevars, the last two sorted. python/syntax's TestScopesMatchCPython
compares them with the Scopes our resolver fills. A file CPython cannot
compile prints "!error MSG"."""

import sys
import types


def walk(code, out):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.append("%s %d | %s | %s | %s" % (
                c.co_name, c.co_firstlineno, " ".join(c.co_varnames),
                " ".join(sorted(c.co_cellvars)), " ".join(sorted(c.co_freevars))))
            walk(c, out)


for path in sys.stdin.read().split():
    print("=== " + path)
    with open(path, "rb") as f:
        src = f.read()
    try:
        code = compile(src, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        print("!error %s" % e.msg)
        continue
    out = []
    walk(code, out)
    for line in sorted(out):
        print(line)
