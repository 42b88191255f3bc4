"""Dump CPython's ast of many files in the canonical form that
python/syntax's TestCPythonCorpus compares with its own tree.

Reads file paths, one a line, on stdin. For each it writes a line
"=== PATH" followed by the dump, or "=== PATH" and one line
"!excluded REASON" for a file we do not compare, or "!error KIND: MSG
@LINE:COL" for a file CPython refuses. Work is spread over two worker
processes of this one interpreter; the output keeps the input's order.

The canonical form: a node is Class(field=value, ...) with CPython's
fields in CPython's order, followed by @LINE:COL-ENDLINE:ENDCOL for nodes
that have positions, columns counted in characters from 1. Constants are
Python reprs; contexts and operators are class names. A statement list
puts one statement on each line, indented two spaces a level, so that a
difference shows as the line of the statement that differs. type_comment,
type_ignores and is_async are left out: they are always empty in the files
we compare.
"""

import ast
import io
import multiprocessing
import sys
import tokenize

UNSUPPORTED = (
    ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith, ast.Await,
    ast.Match, ast.TryStar,
)
SKIPPED_FIELDS = {"type_comment", "type_ignores", "is_async"}


def unsupported(tree):
    for node in ast.walk(tree):
        if isinstance(node, UNSUPPORTED):
            return type(node).__name__
        if isinstance(node, ast.comprehension) and node.is_async:
            return "async comprehension"
    return None


class Dumper:
    def __init__(self, text):
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = [l.encode("utf-8") for l in text.split("\n")]
        self.out = []

    def col(self, lineno, offset):
        line = self.lines[lineno - 1]
        return len(line[:offset].decode("utf-8", "replace")) + 1

    def pos(self, node):
        if not hasattr(node, "lineno"):
            return ""
        return "@%d:%d-%d:%d" % (
            node.lineno, self.col(node.lineno, node.col_offset),
            node.end_lineno, self.col(node.end_lineno, node.end_col_offset))

    def value(self, v, depth):
        if isinstance(v, ast.AST):
            return self.node(v, depth)
        if isinstance(v, list):
            if v and isinstance(v[0], ast.stmt):
                pad = "  " * (depth + 1)
                inner = "".join("\n" + pad + self.node(s, depth + 1) for s in v)
                return "[" + inner + "\n" + "  " * depth + "]"
            return "[" + ", ".join(self.value(x, depth) for x in v) + "]"
        return repr(v)

    def node(self, node, depth):
        name = type(node).__name__
        if isinstance(node, (ast.expr_context, ast.operator, ast.unaryop,
                             ast.cmpop, ast.boolop)):
            return name
        fields = ", ".join(
            "%s=%s" % (f, self.value(getattr(node, f), depth))
            for f in node._fields if f not in SKIPPED_FIELDS)
        return "%s(%s)%s" % (name, fields, self.pos(node))


def dump_file(path):
    head = "=== " + path + "\n"
    try:
        with open(path, "rb") as f:
            data = f.read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if encoding not in ("utf-8", "utf-8-sig"):
            return head + "!excluded encoding %s\n" % encoding
        text = data.decode("utf-8-sig")
    except (UnicodeDecodeError, SyntaxError) as e:
        return head + "!excluded undecodable: %s\n" % e
    try:
        tree = ast.parse(data, path)
    except (SyntaxError, ValueError) as e:
        kind = type(e).__name__
        where = "@%s:%s" % (getattr(e, "lineno", 0), getattr(e, "offset", 0))
        msg = getattr(e, "msg", str(e))
        return head + "!error %s: %s %s\n" % (kind, msg, where)
    what = unsupported(tree)
    if what:
        return head + "!excluded unsupported %s\n" % what
    return head + Dumper(text).node(tree, 0) + "\n"


def main():
    paths = [l.rstrip("\n") for l in sys.stdin if l.strip()]
    out = sys.stdout
    with multiprocessing.Pool(2) as pool:
        for text in pool.imap(dump_file, paths, chunksize=8):
            out.write(text)
    out.flush()


if __name__ == "__main__":
    main()
