#!/bin/bash
# Record testdata/models/zoo on a GPU machine with PyTorch, in one go:
#   1. every program with scripts/record_script.py --events (JOBS at once:
#      each is its own process, so its allocator's figures are its own),
#      beside them the convolutions they run (scripts/conv_configs.py)
#      and the embedding and inner-reduction probes
#      (scripts/probe_embedding.py, scripts/probe_reduce_inner.py);
#   2. those convolutions through scripts/probe_conv.py's table mode
#      (plain ones by three processes to conv0..2.jsonl.gz, transposed
#      ones to convt.jsonl.gz).
# Everything lands in OUTDIR/zoo.tar.gz, made even when a phase runs out
# of its time.
#
#     bash scripts/record_zoo.sh OUTDIR [JOBS]
# ZOO_SECONDS (default 120) bounds the programs' phase, for a busy GPU machine.
set -u
out=$1
jobs=${2:-8}
work=$(mktemp -d)
mkdir -p "$work/rec"
export PYTHONUNBUFFERED=1
start=$SECONDS

record_one() {
	n=$(basename "$1" .py)
	timeout 115 python3 scripts/record_script.py --events "$1" "$2/rec/$n.jsonl" >"$2/rec/$n.stdout" 2>"$2/rec/$n.stderr"
	echo "$n exit $? $((SECONDS))s" >>"$2/rec/status.txt"
}
export -f record_one

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$work/versions.txt" 2>&1
python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version())" >>"$work/versions.txt" 2>&1

ls testdata/models/zoo/*.py | timeout "${ZOO_SECONDS:-120}" xargs -P "$jobs" -I{} bash -c 'record_one {} '"$work" &
rec=$!
timeout 120 python3 scripts/conv_configs.py --jobs 6 "$work/conv_configs_all.json" testdata/models/zoo/*.py 2>"$work/conv_configs.log" &
spy=$!
timeout 120 python3 scripts/probe_embedding.py "$work/embedding.jsonl" >"$work/embedding.log" 2>&1 &
emb=$!
timeout 120 python3 scripts/probe_reduce_inner.py "$work/reduce_inner.jsonl" >"$work/reduce_inner.log" 2>&1 &
red=$!
wait $spy
echo "configs listed at $((SECONDS - start))s" >>"$work/phases.txt"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
try:
    cfgs = json.load(open(f"{work}/conv_configs_all.json"))
except (OSError, ValueError):
    cfgs = []
# the probe's layouts and dtypes only (a strided input is refused by the tool)
cfgs = [c for c in cfgs if c["format"] in ("contiguous", "channels_last") and c["dtype"] in ("float32", "float16", "bfloat16")]
plain = [c for c in cfgs if not c.get("transposed")]
trans = [c for c in cfgs if c.get("transposed")]
json.dump(plain, open(f"{work}/conv_configs.json", "w"), indent=0)
for i in range(3):  # probed by three processes at once
    json.dump(plain[i::3], open(f"{work}/conv_configs{i}.json", "w"), indent=0)
json.dump(trans, open(f"{work}/convt_configs.json", "w"), indent=0)
print(len(plain), "plain,", len(trans), "transposed")
PY
pcs=
for i in 0 1 2; do
	timeout 70 python3 scripts/probe_conv.py table "$work/conv$i.jsonl.gz" --configs "$work/conv_configs$i.json" --seconds 45 >"$work/probe_conv$i.log" 2>&1 &
	pcs="$pcs $!"
done
timeout 70 python3 scripts/probe_conv.py table "$work/convt.jsonl.gz" --configs "$work/convt_configs.json" --seconds 45 >"$work/probe_convt.log" 2>&1 &
pt=$!
wait $rec $emb $red $pcs $pt
echo "done at $((SECONDS - start))s" >>"$work/phases.txt"
tar -C "$work" -czf "$out/zoo.tar.gz" .
ls -la "$out"
cat "$work/phases.txt" "$work/rec/status.txt" "$work/versions.txt"
tail -n 3 "$work/conv_configs.log" "$work"/probe_conv?.log "$work/probe_convt.log" "$work/embedding.log" "$work/reduce_inner.log"
