#!/usr/bin/env python3
"""Writes the facts the engine's general rule needs (engine/opfacts.tsv)
from PyTorch's own declarations: native_functions.yaml (each op's
signature, variants, in-place and view forms, whether its kernel is a
TensorIterator) and derivatives.yaml (what each backward uses).

    python3 scripts/gen_opfacts.py                      # from testdata/opfacts
    python3 scripts/gen_opfacts.py --check              # fails if the facts are stale
    python3 scripts/gen_opfacts.py --native N.yaml --derivatives D.yaml --excerpt
        # from whole files (a torch wheel's torchgen/packaged/): rewrites the
        # excerpts in testdata/opfacts with the entries used, then the facts

The ops are those derivatives.yaml declares and native_functions.yaml
places in a family of the general rule (FAMILIES below); the rest are left
to the op table. No third-party module: the two files' few shapes of entry
are read here.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FACTS = os.path.join(ROOT, "engine", "opfacts.tsv")
EXCERPTS = os.path.join(ROOT, "testdata", "opfacts")

# The families of the general rule, each with its shape rule (the engine,
# engine/general.go, runs them):
#   unary     a TensorIterator op of one tensor: the output is the input's
#             shape and dtype
#   binary    a TensorIterator op of two tensors: the output is their
#             broadcast shape, their promoted dtype
#   scan      (Tensor self, int dim, ...) -> Tensor: the input's shape
#   random    (Tensor self, *, Generator?) -> Tensor: the input's shape
#   fill      an in-place op writing self from a Generator, no other
#             tensor: nothing allocated
FAMILIES = ("unary", "binary", "scan", "random", "fill")

# What a backward formula can read of a tensor without the codegen saving
# the tensor itself (it saves the sizes, the dtype, the options).
METADATA = re.compile(r"\b(\w+)\.(?:sym_sizes|sizes|sym_strides|strides|scalar_type|options|dim|layout|sym_numel|numel|is_complex)\(\)")


def entries(path, key):
    """The entries of a yaml list whose items begin '- KEY: ': each a dict
    of its keys (a continued value joined to its key's), with 'text' the
    entry's lines as written."""
    out, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("- " + key + ": "):
                cur = {key: line[len(key) + 4:].strip(), "text": [line]}
                out.append(cur)
                last = key
                continue
            if cur is None:
                continue
            if line.startswith("#"):  # a comment inside an entry: kept as written
                cur["text"].append(line)
                continue
            if line.strip() == "":
                cur = None
                continue
            cur["text"].append(line)
            m = re.match(r"^  ([\w, ]+): ?(.*)$", line)
            if m and not line.startswith("   "):
                last = m.group(1)
                cur[last] = m.group(2).strip()
            elif not line.lstrip().startswith("#"):
                cur[last] = cur.get(last, "") + " " + line.strip()
    return out


def unquote(v):
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def split_args(s):
    args, depth, cur = [], 0, ""
    for c in s:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        args.append(cur.strip())
    return args


def signature(func):
    """(name, overload, [(type, name, default, keyword_only)], returns)"""
    m = re.match(r"^([\w]+)(?:\.(\w+))?\((.*)\) -> (.*)$", func)
    if not m:
        return None
    name, overload, args, ret = m.group(1), m.group(2) or "", m.group(3), m.group(4)
    parsed, kw = [], False
    for a in split_args(args):
        if a == "*":
            kw = True
            continue
        decl, _, default = a.partition("=")
        typ, _, arg = decl.rpartition(" ")
        parsed.append((typ, arg, default, kw))
    return name, overload, parsed, ret


def tensor_args(args):
    return [n for t, n, _, _ in args if re.match(r"^Tensor(\([a-z]!?\))?$", t)]


def family(sig, native, by_func):
    name, overload, args, ret = sig
    tensors = tensor_args(args)
    others = [t for t, n, _, _ in args if n not in tensors]
    if name.endswith("_"):
        if tensors == ["self"] and args[0][0] == "Tensor(a!)" and any(t == "Generator?" for t in others) and ret == "Tensor(a!)":
            return "fill"
        return None
    if ret != "Tensor":
        return None
    delegate = native.get("structured_delegate", "")
    out = by_func.get(delegate, {})
    if out.get("structured_inherits", "").startswith("TensorIteratorBase"):
        if len(tensors) == 1 and all(t in ("Scalar", "Scalar?") for t in others):
            return "unary"
        if len(tensors) == 2 and not others:
            return "binary"
    if tensors == ["self"] and [t for t in others] in (["int"], ["int", "ScalarType?"]) and args[1][1] == "dim":
        return "scan"
    if tensors == ["self"] and others == ["Generator?"]:
        return "random"
    return None


def saves(formulas, tensors):
    """The tensors (inputs by name, and 'result') a backward's formulas
    read, as the codegen saves them: not a tensor read only for its
    metadata, not the forward-mode names (self_t, self_p)."""
    used = set()
    for key, f in formulas.items():
        if key in ("name", "text", "result", "output_differentiability", "dispatch"):
            continue
        f = METADATA.sub("", unquote(f))
        for n in tensors + ["result"]:
            if re.search(r"(?<![\w.])" + n + r"\b(?!_)", f):
                used.add(n)
    return [n for n in tensors + ["result"] if n in used]


def grads(formulas, tensors):
    """The tensor inputs the backward gives a gradient: those with a
    formula that is neither non_differentiable nor not_implemented."""
    out = []
    for key, f in formulas.items():
        if key in ("name", "text", "result", "output_differentiability", "dispatch"):
            continue
        f = unquote(f)
        if f == "non_differentiable" or f.startswith("not_implemented"):
            continue
        out += [k.strip() for k in key.split(",") if k.strip() in tensors]
    return [n for n in tensors if n in out]


def facts(native_path, deriv_path):
    native = entries(native_path, "func")
    by_func = {}
    for e in native:
        sig = signature(e["func"])
        if sig:
            by_func[sig[0] + ("." + sig[1] if sig[1] else "")] = e
    rows, used = [], []
    seen = {}  # how many entries of each name came before: the node's number (CopysignBackward0, FmodBackward1)
    for d in entries(deriv_path, "name"):
        sig = signature(d["name"])
        if not sig:
            continue
        number = seen.get(sig[0], 0)
        seen[sig[0]] = number + 1
        key = sig[0] + ("." + sig[1] if sig[1] else "")
        n = by_func.get(key)
        if n is None:
            continue
        fam = family(sig, n, by_func)
        if fam is None:
            continue
        name, overload, args, _ = sig
        tensors = tensor_args(args)
        variants = n.get("variants", "function").replace(" ", "")
        inplace = "-"
        if fam != "fill":
            ip = name + "_" + ("." + overload if overload else "")
            if ip in by_func:
                inplace = name + "_"
        used += [n] + ([by_func[n["structured_delegate"]]] if n.get("structured_delegate") in by_func else [])
        if inplace != "-":
            used.append(by_func[inplace + ("." + overload if overload else "")])
        node = "".join(w.capitalize() for w in name.strip("_").split("_")) + "Backward%d" % number
        rows.append("\t".join([name, overload or "-", fam, variants, inplace, node,
                               ",".join(saves(d, tensors)) or "-", ",".join(grads(d, tensors)) or "-",
                               d["name"]]))
    return rows, used, entries(deriv_path, "name")


HEADER = """# Facts of PyTorch's declarations for the engine's general rule
# (engine/general.go), written by scripts/gen_opfacts.py from
# testdata/opfacts (its README says where each file comes from): one op
# overload a line: name, overload, family, variants, in-place method,
# autograd node, what its backward saves, the inputs it gives a
# gradient, the derivatives.yaml signature. Do not edit: run the script.
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--native", default=os.path.join(EXCERPTS, "native_functions_excerpt.yaml"))
    p.add_argument("--derivatives", default=os.path.join(EXCERPTS, "derivatives_excerpt.yaml"))
    p.add_argument("--excerpt", action="store_true", help="rewrite testdata/opfacts's excerpts from the files given")
    p.add_argument("--check", action="store_true", help="fail if engine/opfacts.tsv is not what the excerpts give")
    a = p.parse_args()
    rows, used, derivs = facts(a.native, a.derivatives)
    text = HEADER + "\n".join(rows) + "\n"
    if a.check:
        with open(FACTS) as f:
            if f.read() != text:
                sys.exit("engine/opfacts.tsv is stale: run python3 scripts/gen_opfacts.py")
        print("engine/opfacts.tsv: %d ops, up to date" % len(rows))
        return
    if a.excerpt:
        names = {r.split("\t")[0] for r in rows}
        with open(os.path.join(EXCERPTS, "native_functions_excerpt.yaml"), "w") as f:
            f.write("# Entries of PyTorch's native_functions.yaml (see README.md for the\n# source): the ops of the general rule, as written there.\n")
            for e in used:
                f.write("".join(e["text"]) + "\n")
        with open(os.path.join(EXCERPTS, "derivatives_excerpt.yaml"), "w") as f:
            f.write("# Entries of PyTorch's tools/autograd/derivatives.yaml (see README.md for\n# the source): the ops the general rule covers, as written there.\n")
            for d in derivs:
                if signature(d["name"])[0] in names:
                    f.write("".join(d["text"]) + "\n")
    with open(FACTS, "w") as f:
        f.write(text)
    print("engine/opfacts.tsv: %d ops" % len(rows))


if __name__ == "__main__":
    main()
