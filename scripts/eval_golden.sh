#!/bin/sh
# Records what CPython prints for the evaluator's test programs
# (python/eval/testdata/*.py) into the .out files the Go tests compare
# byte for byte (but call_args.out, left as it is). Run from the
# repository root with python3 3.11:
#   sh scripts/eval_golden.sh
set -e
cd python/eval/testdata
for f in *.py; do
	# call_args.out is CPython 3.12.3's (python3 on the GPU machine):
	# 3.11's *args calls keep their tuple until the callee returns
	[ "$f" = call_args.py ] && continue
	python3 "$f" 2>&1 | sed "s|$PWD/||g" > "${f%.py}.out" || true
done
