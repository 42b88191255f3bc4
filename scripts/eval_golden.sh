#!/bin/sh
# Records what CPython prints for the evaluator's test programs
# (repl/eval/testdata/*.py) into the .out files the Go tests compare
# byte for byte. Run from the repository root with python3 3.11:
#   sh scripts/eval_golden.sh
set -e
cd repl/eval/testdata
for f in *.py; do
	python3 "$f" 2>&1 | sed "s|$PWD/||g" > "${f%.py}.out" || true
done
