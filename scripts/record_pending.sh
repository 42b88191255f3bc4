#!/bin/sh
# Records every rule script of testdata/pyrules_pending on the GPU machine
# in one call, all at once (each its own process), into OUTDIR/NAME.jsonl
# (scripts/record_script.py --events), and scripts/probe_rnn.py's grid of
# cuDNN's RNN sizes into OUTDIR/rnn_probe.jsonl.gz. Run from the
# repository root:
#   sh scripts/record_pending.sh OUTDIR
# Then import them (sh scripts/import_pending.sh OUTDIR;
# testdata/pyrules_pending/README.md, "Importing").
set -u
out=${1:?usage: record_pending.sh OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
for f in testdata/pyrules_pending/*.py; do
	n=$(basename "$f" .py)
	timeout 300 python3 scripts/record_script.py --events "$f" "$out/$n.jsonl" >"$out/$n.log" 2>&1 &
done
timeout 300 python3 scripts/probe_rnn.py "$out/rnn_probe.jsonl.gz" >"$out/rnn_probe.log" 2>&1 &
# PyTorch 2.11's own declarations, for the general rule's facts
# (testdata/opfacts/README.md: scripts/gen_opfacts.py --excerpt reads them)
python3 -c 'import os, torchgen; print(os.path.dirname(torchgen.__file__))' >"$out/torchgen.path" 2>&1 &&
	cp "$(cat "$out/torchgen.path")/packaged/ATen/native/native_functions.yaml" "$(cat "$out/torchgen.path")/packaged/autograd/derivatives.yaml" "$out/"
wait
