import argparse, sys
p = argparse.ArgumentParser(description="train")
p.add_argument("--batch-size", type=int, default=64, help="batch")
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--fp16", action="store_true")
p.add_argument("--layers", type=int, nargs="+", default=[1])
p.add_argument("--mode", choices=["a", "b"], default="a")
p.add_argument("-v", "--verbose", action="count", default=0)
p.add_argument("name", nargs="?", default="run")
args = p.parse_args(["--lr", "0.1", "--fp16"])
print(sys.argv, args)
print(args.batch_size * 2, vars(args)["fp16"])
print(p.parse_args(["--batch-size=8", "--fp16", "-vv", "--layers", "2", "3", "--", "x"]))
print(p.parse_known_args(["--zzz", "--lr", "0.5"]))
p.print_usage()
try:
    p.parse_args(["--batch-size", "x"])
except SystemExit as e:
    print("exit", e.code)
try:
    p.parse_args(["--mode", "c"])
except SystemExit as e:
    print("exit", e.code)
try:
    p.parse_args(["--nope"])
except SystemExit as e:
    print("exit", e.code)
q = argparse.ArgumentParser(prog="q")
q.add_argument("src")
q.add_argument("--n", required=True, type=int)
try:
    q.parse_args([])
except SystemExit as e:
    print("exit", e.code)
print(q.parse_args(["f", "--n", "3"]))
try:
    p.parse_args(["-h"])
except SystemExit as e:
    print("help exit", e.code)
r = argparse.ArgumentParser(prog="r", parents=[q], add_help=False)
r.set_defaults(extra=1)
r.add_argument("--on", dest="flag", action="store_const", const=7)
g = r.add_argument_group("group")
g.add_argument("--tag", action="append")
print(r.parse_args(["s", "--n", "1", "--on", "--tag", "a", "--tag=b"]), r.get_default("extra"))
print("exit codes")
import sys
for code in (None, 0, 3, "msg", True):
    try:
        sys.exit(code)
    except SystemExit as e:
        print(repr(e.code), repr(e))
try:
    raise SystemExit(1, 2)
except SystemExit as e:
    print(e.code)
print("a=b=c".partition("="), "a=b=c".rpartition("="), "abc".partition("x"), "abc".rpartition("x"))
import argparse
p = argparse.ArgumentParser(prog="p")
p.add_argument("--flag", action="store_true")
p.add_argument("srcs", nargs="+")
p.add_argument("dst")
print(p.parse_args(["a", "b", "c"]))
print(p.parse_args(["a", "c", "--flag"]))
q = argparse.ArgumentParser(prog="q")
q.add_argument("first")
q.add_argument("more", nargs="*")
print(q.parse_args(["x"]), q.parse_args(["x", "y", "z"]))
