#!/bin/sh
# Records the conv table's networks' grid on the GPU machine in one call
# (scripts/probe_conv_grid.py: six workers, about four minutes), then
# checks what it wrote. Run from the repository root:
#   sh scripts/record_convgrid.sh OUTDIR [SECONDS]
# Then copy OUTDIR/networks.jsonl.gz to testdata/conv/ and
# engine/convtable/ (testdata/conv/README.md, "The networks' grid");
# a later run goes on where this one stopped with
#   python3 scripts/probe_conv_grid.py OUTDIR --skip testdata/conv/networks.jsonl.gz
set -u
out=${1:?usage: record_convgrid.sh OUTDIR [SECONDS]}
seconds=${2:-200}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$out/convgrid_versions.txt" 2>&1
timeout $((seconds + 120)) python3 scripts/probe_conv_grid.py "$out" --seconds "$seconds" --check >"$out/convgrid.log" 2>&1
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
