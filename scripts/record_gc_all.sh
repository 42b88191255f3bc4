#!/bin/sh
# Records, in one call on the GPU machine, what issue 35's collector and
# tensor-identity work is held to, into OUT/pygc.tar.gz:
#   gc/NAME.jsonl      testdata/experiments/gc/NAME.py (and the five .data/set_ scripts of testdata/pyrules) under scripts/record_gc.py
#                      (plain python3's collector timing, counts per statement)
#   events/NAME.jsonl  the same scripts under scripts/record_script.py --events
#   golden/NAME.jsonl  python/eval/testdata/NAME.py under record_gc.py
#                      (CPython 3.12.3's counts, to compare with 3.12.1's)
#   start.json         the collector's state after import torch (record_gc.py --start)
#   versions.txt       python3 and torch versions
# Run from the repository root: sh scripts/record_gc_all.sh OUT
set -u
out=${1:?usage: record_gc_all.sh OUT}
work=$(mktemp -d)
mkdir -p "$out" "$work/gc" "$work/events" "$work/golden"
export PYTHONUNBUFFERED=1
python3 -c 'import sys, torch; print(sys.version); print(torch.__version__)' >"$work/versions.txt" 2>&1
for f in testdata/experiments/gc/*.py testdata/pyrules/data_swap_saved.py testdata/pyrules/data_assign.py testdata/pyrules/tensor_set.py testdata/pyrules/module_apply_overwrite.py testdata/pyrules/optim_state_data.py; do
	n=$(basename "$f" .py)
	(timeout 100 python3 scripts/record_gc.py "$f" "$work/gc/$n.jsonl" >"$work/gc/$n.log" 2>&1
	 timeout 60 python3 scripts/record_script.py --events "$f" "$work/events/$n.jsonl" >"$work/events/$n.log" 2>&1) &
done
(cd python/eval/testdata && for f in *.py; do
	timeout 20 python3 ../../../scripts/record_gc.py "$f" "$work/golden/${f%.py}.jsonl" >/dev/null 2>"$work/golden/${f%.py}.log" </dev/null
done) &
timeout 120 python3 scripts/record_gc.py --start "$work/start.json" >"$work/start.log" 2>&1
wait
tar -czf "$out/pygc.tar.gz" -C "$work" .
rm -rf "$work"
