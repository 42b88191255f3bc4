#!/usr/bin/env python3
"""How much of the PyTorch API that real model code uses does gpumemrepl model?

    python3 scripts/api_coverage.py BIN [TSV] [--out STATUS.tsv] [--timeout SECONDS]
        [--files FILES.tsv ...] [--corpus-files N] [--ratchet COVERED.txt [--update]]

BIN: a gpumemrepl binary.  TSV: the census (default: testdata/census/api-usage.tsv),
with the columns kind, name, uses, files, repos.

Copied from ../shared/api-coverage.py (issue 35's checker; testdata/census/README.md
says where the census came from).  This copy adds:
  - files: how many of the census's N files (--corpus-files, default 294) use only
    modelled names.  Each FILES.tsv (default: testdata/census/files-*.tsv, made by
    scripts/api_census.py --per-file) lists some files' names; those files are counted
    exactly.  For the others only the census's per-name file counts are known, so the
    count is a range: they hold at most sum(files of each unmodelled name, less the
    listed files that use it) files that use an unmodelled name, and at least the
    largest of those.
  - --ratchet COVERED.txt: every name listed there (one a line) must still be covered,
    or the checker exits 1 naming those that are not; --update rewrites the list with
    every name covered now.

It writes one Python script that checks every name in the tool:
  - torch paths (kind torch, nn, functional): the script first tries to import each
    module prefix (`import torch.utils.checkpoint`, as real scripts do), then walks
    the path with getattr from `torch`;
  - Tensor methods (kind Tensor): getattr(torch.zeros(1), name);
  - Tensor properties (kind Tensor.attr): getattr(torch.zeros(2, 2), name) (2-D, so
    that .T, .mT and .H have a matrix to read);
  - nn.Module methods (kind Module): getattr(torch.nn.Linear(1, 1), name).
Each check is its own try/except and prints one marker line, "@@<TAB>name<TAB>status...",
so one failing name does not stop the rest; the script runs under
`BIN run --device sim --json --keep-going FILE.py`.  Names that print no marker (the
tool stopped or crashed) are checked again in smaller scripts, then one by one.

Statuses:
  ok            the attribute is there (modelled)
  error         the attribute is there, but reading it on the dummy value raised
                something other than AttributeError/ImportError/NotImplementedError
                (counted as modelled)
  not-modelled  AttributeError that says "does not model": PyTorch 2.11 has it, the tool not
  unknown       AttributeError/ImportError without that note: the tool has no record of
                the name (a namespace it did not record, a private or non-PyTorch name)
  refused       NotImplementedError when the attribute is read
  no-result     no marker even when checked alone
A name counts as covered when ok or error.  Only attribute access is checked: a call
may still raise NotImplementedError for arguments or configurations the tool does not
model.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

MARK = "@@\t"


def read_tsv(path):
    rows = []
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {h: i for i, h in enumerate(header)}
        for line in f:
            if not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            name = c[col["name"]]
            kind = c[col["kind"]] if "kind" in col else ""
            if not kind:
                kind = "Tensor" if name.startswith("Tensor.") else "Module" if name.startswith("Module.") else "torch"
            rows.append({
                "kind": kind, "name": name, "uses": int(c[col["uses"]]),
                "files": int(c[col["files"]]) if "files" in col else 0,
                "repos": int(c[col["repos"]]) if "repos" in col else 0,
            })
    return rows


def is_ident(s):
    return s.isidentifier()


def module_prefixes(name):
    parts = name.split(".")
    out = []
    for i in range(2, len(parts)):
        p = parts[i - 1]
        if not is_ident(p) or p[:1].isupper():
            break
        out.append(".".join(parts[:i]))
    return out


PRELUDE = '''import torch
import torch.nn

def _say(name, status, e):
    try:
        msg = str(e).replace("\\n", " ").replace("\\t", " ")
    except BaseException:
        msg = "<message could not be formatted>"
    try:
        print("@@\\t" + name + "\\t" + status + "\\t" + type(e).__name__ + "\\t" + msg)
    except BaseException:
        print("@@\\t" + name + "\\t" + status + "\\t?\\t?")

def _fail(name, e):
    t = type(e).__name__
    text = ""
    try:
        text = str(e)
    except BaseException:
        pass
    if t == "NotImplementedError":
        _say(name, "refused", e)
    elif t in ("AttributeError", "ModuleNotFoundError", "ImportError"):
        if "does not model" in text:
            _say(name, "not-modelled", e)
        else:
            _say(name, "unknown", e)
    else:
        _say(name, "error", e)

def _path(name):
    obj = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj

'''


def build_script(rows):
    out = [PRELUDE]
    seen = set()
    for r in rows:
        if r["kind"] in ("Tensor", "Tensor.attr", "Module"):
            continue
        for m in module_prefixes(r["name"]):
            if m in seen or m == "torch.nn":
                continue
            seen.add(m)
            out.append("try:\n    import %s\nexcept BaseException as _e:\n    print('@@import\\t%s\\t' + type(_e).__name__)\n" % (m, m))
    for r in rows:
        name, kind = r["name"], r["kind"]
        short = name.split(".", 1)[1] if "." in name else name
        if kind == "Tensor":
            expr = "getattr(torch.zeros(1), %r)" % short
        elif kind == "Tensor.attr":
            expr = "getattr(torch.zeros(2, 2), %r)" % short
        elif kind == "Module":
            expr = "getattr(torch.nn.Linear(1, 1), %r)" % short
        else:
            expr = "_path(%r)" % name
        out.append("try:\n    _v = %s\n    print(%r)\nexcept BaseException as _e:\n    _fail(%r, _e)\n_v = None\n"
                   % (expr, MARK + name + "\tok", name))
    return "\n".join(out)


def run_tool(binary, rows, timeout):
    """-> {name: (status, etype, message)}, stderr tail"""
    fd, path = tempfile.mkstemp(suffix=".py", prefix="api_coverage_")
    with os.fdopen(fd, "w") as f:
        f.write(build_script(rows))
    try:
        p = subprocess.run([binary, "run", "--device", "sim", "--json", "--keep-going", path],
                           capture_output=True, text=True, timeout=timeout)
        stdout, stderr = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = "timed out after %ss" % timeout
    finally:
        os.unlink(path)
    texts = []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            texts.append(line)
            continue
        if isinstance(obj, dict) and obj.get("output"):
            texts.extend(obj["output"].splitlines())
    res = {}
    for t in texts:
        if not t.startswith(MARK):
            continue
        c = t.split("\t")
        if len(c) >= 3:
            res[c[1]] = (c[2], c[3] if len(c) > 3 else "", c[4] if len(c) > 4 else "")
    return res, stderr[-500:]


def check_all(binary, rows, timeout):
    res, _ = run_tool(binary, rows, timeout)
    missing = [r for r in rows if r["name"] not in res]
    # names that printed nothing: again in batches of 25, then one at a time
    for size in (25, 1):
        if not missing:
            break
        for i in range(0, len(missing), size):
            got, err = run_tool(binary, missing[i:i + size], timeout)
            res.update(got)
            if size == 1 and missing[i]["name"] not in got:
                res[missing[i]["name"]] = ("no-result", "", err.strip().replace("\n", " ")[-200:])
        missing = [r for r in rows if r["name"] not in res]
    return res


HERE = os.path.dirname(os.path.abspath(__file__))
CENSUS = os.path.join(HERE, "..", "testdata", "census")


def read_file_lists(paths):
    """-> {file: set of names} from files written by api_census.py --per-file"""
    lists = {}
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    continue
                if "\t" not in line:
                    sys.exit("%s:%d: want FILE<TAB>names" % (path, n))
                name, names = line.split("\t", 1)
                lists[name] = set(names.split())
    return lists


def count_files(rows, lists, corpus_files):
    """-> (exactly clean listed files, listed files, lower and upper bound of clean files of all)

    Of the files not listed, those using some unmodelled name number at
    most the sum of each such name's files outside the lists (the lower
    bound of clean files) and at least the largest of them (the upper)."""
    covered = {r["name"] for r in rows if r["covered"]}
    clean = sum(1 for names in lists.values() if names <= covered)
    rest = corpus_files - len(lists)
    blocked = [max(0, r["files"] - sum(1 for names in lists.values() if r["name"] in names))
               for r in rows if not r["covered"]]
    return clean, len(lists), clean + rest - min(rest, sum(blocked)), clean + rest - max(blocked, default=0)


def pop_option(args, flag, many=False):
    vals = []
    while flag in args:
        i = args.index(flag)
        if i + 1 >= len(args):
            sys.exit("%s needs a value" % flag)
        vals.append(args[i + 1])
        del args[i:i + 2]
    if many:
        return vals
    return vals[-1] if vals else None


def ratchet(rows, path, update):
    covered = sorted(r["name"] for r in rows if r["covered"])
    if update:
        with open(path, "w") as f:
            f.write("".join(n + "\n" for n in covered))
        print("wrote %s: %d names" % (path, len(covered)))
        return True
    want = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    lost = sorted(set(want) - set(covered))
    for n in lost:
        print("coverage dropped: %s was covered (%s lists it) and is not now" % (n, path))
    return not lost


def main():
    args = sys.argv[1:]
    timeout = 600
    out_path = pop_option(args, "--out")
    file_paths = pop_option(args, "--files", many=True)
    corpus_files = int(pop_option(args, "--corpus-files") or 294)
    ratchet_path = pop_option(args, "--ratchet")
    update = "--update" in args
    if update:
        args.remove("--update")
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(2)
    binary = args[0]
    tsv = args[1] if len(args) > 1 else os.path.join(CENSUS, "api-usage.tsv")
    if not file_paths:
        file_paths = sorted(os.path.join(CENSUS, f) for f in os.listdir(CENSUS)
                            if f.startswith("files-") and f.endswith(".tsv"))
    rows = read_tsv(tsv)
    res = check_all(binary, rows, timeout)
    for r in rows:
        r["status"], r["etype"], r["msg"] = res.get(r["name"], ("no-result", "", ""))
        r["covered"] = r["status"] in ("ok", "error")

    total_uses = sum(r["uses"] for r in rows)
    cov = [r for r in rows if r["covered"]]
    cov_uses = sum(r["uses"] for r in cov)
    known = [r for r in rows if r["status"] != "unknown"]
    known_uses = sum(r["uses"] for r in known)
    status_n = collections.Counter(r["status"] for r in rows)
    status_u = collections.Counter()
    for r in rows:
        status_u[r["status"]] += r["uses"]

    print("gpumemrepl API coverage: %s" % binary)
    print("census: %s (%d names, %d uses)" % (tsv, len(rows), total_uses))
    print("names modelled: %d of %d (%.1f%%)" % (len(cov), len(rows), 100.0 * len(cov) / max(1, len(rows))))
    print("uses covered:   %d of %d (%.1f%%)" % (cov_uses, total_uses, 100.0 * cov_uses / max(1, total_uses)))
    print("  of the uses of names the tool knows PyTorch has (all but 'unknown'): %.1f%%"
          % (100.0 * cov_uses / max(1, known_uses)))
    clean, listed, low, high = count_files(rows, read_file_lists(file_paths), corpus_files)
    print("files using only modelled names: at least %d, at most %d of %d (of the %d files listed by name: %d)"
          % (low, high, corpus_files, listed, clean))
    print("status     names    uses")
    for s in ("ok", "error", "not-modelled", "refused", "unknown", "no-result"):
        if status_n[s]:
            print("%-12s %5d %7d" % (s, status_n[s], status_u[s]))
    print("by kind       names modelled      uses covered")
    for k in ("torch", "nn", "functional", "Tensor", "Tensor.attr", "Module"):
        rk = [r for r in rows if r["kind"] == k]
        if not rk:
            continue
        u = sum(r["uses"] for r in rk)
        cu = sum(r["uses"] for r in rk if r["covered"])
        print("%-12s %5d/%-5d %5.1f%%  %6d/%-6d %5.1f%%" % (
            k, sum(1 for r in rk if r["covered"]), len(rk), 100.0 * sum(1 for r in rk if r["covered"]) / len(rk),
            cu, u, 100.0 * cu / max(1, u)))
    print()
    print("top 40 unmodelled names by uses:")
    print("%4s %6s %5s %5s  %-12s %-13s %s" % ("rank", "uses", "files", "repos", "kind", "status", "name"))
    unc = [r for r in rows if not r["covered"]]
    unc.sort(key=lambda r: (-r["uses"], r["name"]))
    for i, r in enumerate(unc[:40], 1):
        print("%4d %6d %5d %5d  %-12s %-13s %s" % (i, r["uses"], r["files"], r["repos"], r["kind"], r["status"], r["name"]))
    print()
    print("top 20 unmodelled names by files (the census's files that use each, none of which can run whole without it):")
    for i, r in enumerate(sorted(unc, key=lambda r: (-r["files"], -r["uses"], r["name"]))[:20], 1):
        print("%4d %5d %6d  %-12s %-13s %s" % (i, r["files"], r["uses"], r["kind"], r["status"], r["name"]))
    if out_path:
        with open(out_path, "w") as f:
            f.write("kind\tname\tuses\tfiles\trepos\tstatus\terror\n")
            for r in rows:
                f.write("%s\t%s\t%d\t%d\t%d\t%s\t%s\n" % (
                    r["kind"], r["name"], r["uses"], r["files"], r["repos"], r["status"],
                    (r["etype"] + ": " + r["msg"]).strip(": ")[:300]))
    if ratchet_path and not ratchet(rows, ratchet_path, update):
        sys.exit(1)


if __name__ == "__main__":
    main()
