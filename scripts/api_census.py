#!/usr/bin/env python3
"""Count the PyTorch API that a corpus of Python files uses.

    python3 scripts/api_census.py [--no-annotations] [--per-file FILES.tsv] NAMES CORPUS OUT.tsv

Copied from ../shared/api-census.py (the census of issue 35, which made
testdata/census/api-usage.tsv from 294 files of 18 repositories; see
testdata/census/README.md); --per-file is this copy's: it also writes each
file's names, one line a file, "REPO/PATH<TAB>name name ...", sorted, which
scripts/api_coverage.py reads to count the files that use only modelled names.

NAMES: a file of PyTorch's public names by namespace (gpumemrepl's
repl/torchpy/pytorch_names.txt: one line per namespace, "NAMESPACE<TAB>name name ...").
CORPUS: a folder holding one folder per repository (owner+name), the files under it.

Every file is parsed with Python's ast (no regex over text: docstrings, comments and
strings are not counted).  Counted:
  - torch paths: an attribute chain or a bare name that resolves, through the file's
    imports, to a dotted path under torch (`import torch.nn.functional as F`,
    `from torch import nn`, `import torch as th`, `from torch.nn import Linear`);
    the longest chain is counted once (torch.nn.functional.softmax, not torch.nn too),
    cut after its first capitalised part (torch.nn.Module.__init__ -> torch.nn.Module).
    kind: nn (torch.nn.X, torch.nn.modules.*, torch.nn.parameter.*), functional
    (torch.nn.functional.*), torch (everything else: torch.x, torch.cuda.x,
    torch.nn.init.x, torch.optim.X, ...).
  - Tensor: a call `.name(...)` where name is a torch.Tensor method, on a value that
    is not an imported module (np.mean, math.sqrt, os.path.join), a class defined in
    the file, a string or other literal, or `self` itself; calls whose positional
    arguments include a string literal are left out (str.split('.'), logger.log(...),
    pattern.sub(...)) except for to/type/cuda/rename/refine_names/align_to; list.sort
    with key=/reverse= is left out; index, values, indices and put are not counted
    (almost always list.index, dict.values, queue.put).
  - Tensor.attr: a property of torch.Tensor read or written (.shape, .dtype, .device,
    .T, .grad, .data, .requires_grad, ...) on such a value, not directly on self,
    args, opt, cfg or config.
  - Module: a call `.name(...)` of an nn.Module method that is not also a Tensor
    method (parameters, named_parameters, eval, train, state_dict, register_buffer,
    apply, ...), under the same receiver rules (but self counts).
Annotations are counted unless the file has `from __future__ import annotations`
(Python evaluates them when the def or class runs), or --no-annotations is given.
"""
import ast
import collections
import os
import sys

TENSOR_PROPS = set("""H T mH mT data device dtype grad grad_fn grad_dtype is_cuda is_leaf is_sparse
is_sparse_csr is_quantized is_meta is_cpu is_mkldnn is_mps is_nested is_xla is_xpu is_ipu is_maia
is_mtia is_vulkan itemsize layout nbytes ndim output_nr real imag requires_grad retains_grad shape""".split())
# Tensor methods never counted: almost always another type's method of the same name
TENSOR_SKIP = {"index", "values", "indices", "put", "name", "names", "volatile", "mode"}
# a name every assignment in the file binds to one of these is not a tensor (decay = set(); decay.add(n))
NONTENSOR_CALLS = {"set", "dict", "list", "tuple", "frozenset", "str", "defaultdict", "OrderedDict",
                   "Counter", "deque", "namedtuple", "SimpleNamespace"}
STRING_OK = {"to", "type", "cuda", "rename", "rename_", "refine_names", "align_to"}
PROP_SKIP_RECV = {"self", "cls", "args", "opt", "opts", "cfg", "config", "hparams",
                  "training_args", "accelerator", "fabric", "trainer", "self.config", "self.args", "model.config"}
MODULE_SKIP = {"T_destination", "call_super_init", "dump_patches"}

# torch paths that are modules: a bare name bound to one of these is not a use
MODULE_PATHS = {
    "torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.modules",
    "torch.nn.parameter", "torch.nn.parallel", "torch.optim", "torch.optim.lr_scheduler", "torch.cuda",
    "torch.cuda.amp", "torch.amp", "torch.distributed", "torch.utils", "torch.utils.data",
    "torch.utils.checkpoint", "torch.autograd", "torch.fx", "torch.jit", "torch.backends",
    "torch.distributions", "torch.linalg", "torch.fft", "torch.special", "torch.testing", "torch.onnx",
    "torch.multiprocessing", "torch.overrides", "torch.hub", "torch.library", "torch._dynamo",
    "torch.compiler", "torch.export", "torch.profiler", "torch.utils.data.distributed",
    "torch.distributed.fsdp", "torch.nn.attention", "torch.utils.hooks", "torch.ao",
    "torch.distributed.tensor", "torch._C", "torch.backends.cuda", "torch.backends.cudnn",
    "torch.utils._pytree", "torch.nn.utils.parametrize", "torch.nn.utils.rnn", "torch.func",
}


def load_names(path):
    ns = {}
    for line in open(path):
        if line.startswith("#") or "\t" not in line:
            continue
        k, v = line.rstrip("\n").split("\t", 1)
        ns[k] = set(v.split())
    return ns


def dotted(node):
    """Name/Attribute chain -> list of parts, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def cut(path):
    parts = path.split(".")
    for i, p in enumerate(parts):
        if i > 0 and p[:1].isupper():
            return ".".join(parts[: i + 1])
    return path


def kind_of(path):
    if path.startswith("torch.nn.functional."):
        return "functional"
    parts = path.split(".")
    if len(parts) == 3 and parts[1] == "nn" and parts[2][:1].isupper():
        return "nn"
    if path.startswith("torch.nn.modules.") or path.startswith("torch.nn.parameter."):
        return "nn"
    return "torch"


class FileCounter(ast.NodeVisitor):
    def __init__(self, tree, tensor_methods, module_methods, annotations=True):
        self.tm = tensor_methods
        self.mm = module_methods
        self.uses = collections.Counter()
        self.alias = {}       # name -> torch dotted path
        self.other = set()    # names bound by imports of non-torch modules
        self.classes = set()
        self.future_ann = not annotations
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.name == "torch" or a.name.startswith("torch."):
                        if a.asname:
                            self.alias[a.asname] = a.name
                        else:
                            self.alias["torch"] = "torch"
                    else:
                        self.other.add(a.asname or a.name.split(".")[0])
            elif isinstance(n, ast.ImportFrom):
                mod = n.module or ""
                if n.level == 0 and (mod == "torch" or mod.startswith("torch.")):
                    for a in n.names:
                        if a.name != "*":
                            self.alias[a.asname or a.name] = mod + "." + a.name
                elif n.level == 0 and mod == "__future__":
                    if any(a.name == "annotations" for a in n.names):
                        self.future_ann = True
                else:
                    for a in n.names:
                        self.other.add(a.asname or a.name)
            elif isinstance(n, ast.ClassDef):
                self.classes.add(n.name)
        # a name imported from torch and also from elsewhere: trust torch
        self.other -= set(self.alias)
        # names (x, self.x) that every assignment in the file binds to a set, dict, list, str, ...
        binds = collections.defaultdict(set)
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign):
                targets, value = n.targets, n.value
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                targets, value = [n.target], n.value
            else:
                continue
            nt = isinstance(value, (ast.Set, ast.Dict, ast.List, ast.ListComp, ast.SetComp, ast.DictComp,
                                    ast.JoinedStr)) \
                or (isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes))) \
                or (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
                    and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in NONTENSOR_CALLS)
            for t in targets:
                if isinstance(t, (ast.Name, ast.Attribute)):
                    binds[ast.unparse(t)].add(nt)
        self.nontensor = {k for k, v in binds.items() if v == {True}}

    # --- resolution -------------------------------------------------------
    def resolve(self, node):
        parts = dotted(node)
        if not parts or parts[0] not in self.alias:
            return None
        return ".".join([self.alias[parts[0]]] + parts[1:])

    def receiver_ok(self, recv, allow_self):
        if isinstance(recv, (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
                             ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            return False
        if isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super":
            return allow_self
        parts = dotted(recv)
        if parts:
            root = parts[0]
            if root in self.other or root in self.classes:
                return False
            if len(parts) == 1 and root in ("self", "cls") and not allow_self:
                return False
            if root in self.alias:       # a torch path: counted as such, not as a method
                return False
        return True

    # --- visiting ---------------------------------------------------------
    def visit_Attribute(self, node):
        path = self.resolve(node)
        if path is not None:
            if path not in MODULE_PATHS:
                self.uses[("torch-path", cut(path))] += 1
            return  # the whole chain is one use
        if node.attr in TENSOR_PROPS and not getattr(node, "_is_call_func", False):
            recv = node.value
            rtext = ast.unparse(recv) if hasattr(ast, "unparse") else ""
            if self.receiver_ok(recv, allow_self=False) and rtext not in PROP_SKIP_RECV \
                    and not rtext.startswith("args.") and not rtext.startswith("self.config"):
                self.uses[("Tensor.attr", node.attr)] += 1
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.alias and isinstance(node.ctx, ast.Load):
            path = self.alias[node.id]
            if path not in MODULE_PATHS:
                self.uses[("torch-path", cut(path))] += 1

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and self.resolve(f) is None:
            f._is_call_func = True
            name = f.attr
            recv = f.value
            strarg = any(isinstance(a, (ast.JoinedStr,)) or (isinstance(a, ast.Constant) and isinstance(a.value, (str, bytes)))
                         for a in node.args)
            kws = {k.arg for k in node.keywords}
            if name in self.tm and name not in TENSOR_SKIP:
                ok = self.receiver_ok(recv, allow_self=False)
                if strarg and name not in STRING_OK:
                    ok = False
                if isinstance(recv, (ast.Name, ast.Attribute)) and ast.unparse(recv) in self.nontensor:
                    ok = False
                if name == "sort" and (kws & {"key", "reverse"}):
                    ok = False
                if name in ("split", "rsplit") and not node.args and not node.keywords:
                    ok = False  # str.split()
                if ok:
                    self.uses[("Tensor", name)] += 1
            elif name in self.mm:
                ok = self.receiver_ok(recv, allow_self=True)
                if name == "apply" and isinstance(recv, ast.Name) and recv.id[:1].isupper():
                    ok = False  # autograd Function.apply
                if name in ("eval", "compile", "train") and strarg:
                    ok = False
                if ok:
                    self.uses[("Module", name)] += 1
        self.generic_visit(node)

    def _visit_annotation(self, ann):
        if ann is not None and not self.future_ann:
            self.visit(ann)

    def visit_arg(self, node):
        self._visit_annotation(node.annotation)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)
        self._visit_annotation(node.returns)
        for s in node.body:
            self.visit(s)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node):
        self._visit_annotation(node.annotation)
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)


def main():
    argv = sys.argv[1:]
    annotations = "--no-annotations" not in argv
    argv = [a for a in argv if a != "--no-annotations"]
    per_file_out = None
    if "--per-file" in argv:
        i = argv.index("--per-file")
        per_file_out = argv[i + 1]
        del argv[i:i + 2]
    names_path, corpus, out = argv[:3]
    ns = load_names(names_path)
    tensor_all = ns["torch.Tensor"]
    tensor_methods = {n for n in tensor_all if n not in TENSOR_PROPS}
    module_methods = {n for n in ns["torch.nn.Module"] if n not in tensor_all and n not in MODULE_SKIP}
    uses = collections.Counter()
    files = collections.defaultdict(set)
    repos = collections.defaultdict(set)
    nfiles = 0
    failed = []
    per_repo = collections.Counter()
    per_file = {}
    for repo in sorted(os.listdir(corpus)):
        for root, _, fs in os.walk(os.path.join(corpus, repo)):
            for fn in sorted(fs):
                if not fn.endswith(".py"):
                    continue
                p = os.path.join(root, fn)
                src = open(p, encoding="utf-8", errors="replace").read()
                try:
                    tree = ast.parse(src)
                except SyntaxError as e:
                    failed.append((p, str(e)))
                    continue
                nfiles += 1
                per_repo[repo] += 1
                fc = FileCounter(tree, tensor_methods, module_methods, annotations)
                fc.visit(tree)
                rel = os.path.relpath(p, corpus)
                per_file[rel] = set()
                for (k, name), c in fc.uses.items():
                    if k == "torch-path":
                        key = (kind_of(name), name)
                    elif k == "Tensor":
                        key = ("Tensor", "Tensor." + name)
                    elif k == "Tensor.attr":
                        key = ("Tensor.attr", "Tensor." + name)
                    else:
                        key = ("Module", "Module." + name)
                    uses[key] += c
                    per_file[rel].add(key[1])
                    files[key].add(rel)
                    repos[key].add(repo)
    rows = sorted(uses, key=lambda k: (-uses[k], k[1]))
    with open(out, "w") as f:
        f.write("kind\tname\tuses\tfiles\trepos\n")
        for k in rows:
            f.write("%s\t%s\t%d\t%d\t%d\n" % (k[0], k[1], uses[k], len(files[k]), len(repos[k])))
    if per_file_out:
        with open(per_file_out, "w") as f:
            for rel in sorted(per_file):
                f.write("%s\t%s\n" % (rel, " ".join(sorted(per_file[rel]))))
    print("files parsed: %d; failed: %d" % (nfiles, len(failed)), file=sys.stderr)
    for p, e in failed:
        print("  syntax error:", p, e, file=sys.stderr)
    for r, n in sorted(per_repo.items()):
        print("  %-45s %d files" % (r, n), file=sys.stderr)
    print("names: %d, uses: %d" % (len(rows), sum(uses.values())), file=sys.stderr)


if __name__ == "__main__":
    main()
