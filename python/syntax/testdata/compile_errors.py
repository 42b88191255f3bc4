"""Compile each source of a JSON list on stdin as a file, as
compile(src, "f", "exec") does, and print a JSON list with, for each, the
SyntaxError it raises as [kind, msg, lineno, offset], or null where it
compiles. python/syntax's TestSyntaxErrorsMatchCPython compares them with
ours."""

import json
import sys
import warnings

warnings.simplefilter("ignore")
out = []
for src in json.load(sys.stdin):
    try:
        compile(src, "f", "exec")
        out.append(None)
    except SyntaxError as e:
        out.append([type(e).__name__, e.msg, e.lineno, e.offset or 0])
json.dump(out, sys.stdout)
