#!/bin/sh
# Records the conv table's networks' grid on the GPU machine in one call
# (scripts/probe_conv_grid.py), then checks what it wrote. Run from the
# repository root:
#   sh scripts/record_convgrid.sh OUTDIR [SECONDS [SKIP.jsonl.gz...]]
# SKIP: earlier recordings of the grid, whose configurations it does not
# probe again (a later call goes on where an earlier one stopped).
# With CALIBRATE=PROGRAM.py it first runs scripts/calibrate.py on that
# program (OUTDIR/PROGRAM.calibration.jsonl): the real script's check.
# Then copy OUTDIR/networks.jsonl.gz to testdata/conv/ and
# engine/convtable/ (testdata/conv/README.md, "The networks' grid").
set -u
out=${1:?usage: record_convgrid.sh OUTDIR [SECONDS [SKIP.jsonl.gz...]]}
seconds=${2:-200}
shift
[ $# -gt 0 ] && shift
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$out/convgrid_versions.txt" 2>&1
if [ -n "${CALIBRATE:-}" ]; then
  name=$(basename "$CALIBRATE" .py)
  timeout 60 python3 scripts/calibrate.py "$CALIBRATE" -o "$out/$name.calibration.jsonl" >"$out/calibrate.log" 2>&1
  echo "calibrate exit $?" >>"$out/calibrate.log"
fi
timeout $((seconds + 60)) python3 scripts/probe_conv_grid.py "$out" --seconds "$seconds" --workers 5 --budget-gib 30 --skip "$@" >"$out/convgrid.log" 2>&1
echo "probe exit $?" >>"$out/convgrid.log"
python3 - "$out" <<'PY' >>"$out/convgrid.log" 2>&1
import gzip, json, sys
n = err = 0
with gzip.open(sys.argv[1] + "/networks.jsonl.gz", "rt") as f:
    print(f.readline().strip())
    for line in f:
        rec = json.loads(line)
        n += 1
        err += "error" in rec
print(n, "lines,", err, "errors")
PY
tail -n 5 "$out/convgrid.log"
