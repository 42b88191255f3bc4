"""Answers pyformat's comparison cases with CPython itself.

Reads one JSON case a line on stdin and writes one JSON answer a line:
{"out": text} or {"err": "ExceptionClass: message"}; for a float power
that C's pow did not round correctly, {"out": text, "rounded": text}
with the correctly rounded result beside CPython's. Values come as
{"int": "123"}, {"float": "<float.hex()>"}, {"str": s}, {"bool": b},
{"list": [...]}, {"tuple": [...]}, {"dict": [[key, value], ...]}.
"""
import decimal
import json
import math
import sys


def value(v):
    (kind, x), = v.items()
    if kind == "int":
        return int(x)
    if kind == "float":
        return float.fromhex(x)
    if kind in ("str", "bool"):
        return x
    if kind == "list":
        return [value(i) for i in x]
    if kind == "tuple":
        return tuple(value(i) for i in x)
    if kind == "dict":
        return {k: value(i) for k, i in x}
    raise ValueError("unknown value kind " + kind)


ARITH = {
    "div": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "divmod": divmod,
    "pow": lambda a, b: a ** b,
}


class ComplexResult(Exception):
    """A power whose result is complex, which pyformat reports as such."""


class LibmRounding(Exception):
    """A power that C's pow did not round correctly: CPython's answer,
    and the correctly rounded one."""


def answer(case):
    op = case["op"]
    if op == "format":
        return format(value(case["v"]), case["spec"])
    if op == "percent":
        return case["fmt"] % value(case["v"])
    if op == "strformat":
        args = [value(a) for a in case["args"]]
        kwargs = value(case["kwargs"])
        return case["fmt"].format(*args, **kwargs)
    if op == "repr":
        return repr(value(case["v"]))
    if op == "reprbytes":
        return repr(bytes(case["b"]))
    if op == "ascii":
        return ascii(value(case["v"]))
    if op == "float":
        return repr(float(case["s"]))
    if op == "int":
        return format(int(case["s"], case["base"]), "x")
    if op == "arith":
        a, b = value(case["a"]), value(case["b"])
        # A negative base with a fractional exponent: a complex result,
        # or OverflowError("complex exponentiation") when it is too large.
        if case["fn"] == "pow" and -math.inf < a < 0 and math.isfinite(b) and b != math.floor(b):
            raise ComplexResult()
        r = ARITH[case["fn"]](a, b)
        if isinstance(r, complex):
            raise ComplexResult()
        if case["fn"] == "pow" and isinstance(r, float) and math.isfinite(a) and math.isfinite(b) and math.isfinite(r) and r != 0:
            with decimal.localcontext() as ctx:
                ctx.prec = 60
                rounded = float(decimal.Decimal(a) ** decimal.Decimal(b))
            if rounded != r:
                raise LibmRounding(repr(r), repr(rounded))
        return repr(r)
    if op == "round":
        if case["n"] is None:
            return repr(round(value(case["v"])))
        return repr(round(value(case["v"]), case["n"]))
    if op == "tofloat":
        return repr(float(value(case["v"])))
    if op == "toint":
        return repr(int(value(case["v"])))
    raise ValueError("unknown op " + op)


def main():
    for line in sys.stdin:
        try:
            out = {"out": answer(json.loads(line))}
        except ComplexResult:
            out = {"err": "complex"}
        except LibmRounding as e:
            out = {"out": e.args[0], "rounded": e.args[1]}
        except Exception as e:  # every exception is an answer to compare
            msg = str(e)
            out = {"err": type(e).__name__ + (": " + msg if msg else "")}
        print(json.dumps(out))


main()
