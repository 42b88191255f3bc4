#!/bin/sh
# Imports the recordings of scripts/record_pending.sh (its OUTDIR, copied
# back from the GPU machine): each testdata/pyrules_pending/NAME.py with a
# non-empty OUTDIR/NAME.jsonl moves to testdata/pyrules beside it, joins
# testdata/pyrules/statements_differ.txt, and torchpy's
# TestRecordedStatements then says, per script, which statements differ
# from PyTorch's (and how: the first event, error or print) and which
# estimated ops ran only in statements that match: the rules whose label
# may go (testdata/pyrules_pending/README.md, "Importing"). Run from the
# repository root:
#   sh scripts/import_pending.sh OUTDIR
set -eu
out=${1:?usage: import_pending.sh OUTDIR}
list=testdata/pyrules/statements_differ.txt
for f in testdata/pyrules_pending/*.py; do
	n=$(basename "$f" .py)
	if [ ! -s "$out/$n.jsonl" ]; then
		echo "$n: no recording in $out (see $out/$n.log)"
		continue
	fi
	git mv "$f" "testdata/pyrules/$n.py"
	cp "$out/$n.jsonl" "testdata/pyrules/$n.jsonl"
	grep -q "^$n:" "$list" || echo "$n:" >>"$list"
	echo "$n: moved to testdata/pyrules with its recording"
done
# the lists of differing statements as they are now, then each script's
# log: its differing statements named by the run without the lists
go test ./torchpy -run TestRecordedStatements -update >/dev/null
go test ./torchpy -run TestRecordedStatements -v | grep -E '^\s+(--- |statements_test)' || true
echo "statements that differ, by script: $list (git diff shows what moved)"
