#!/bin/sh
# Records leak experiments of testdata/experiments/gc under
# scripts/record_gc.py with CPython's free lists of lists, dicts and
# tuples read (sys._debugmallocstats(), to stderr) before each print of
# their loops: `import torch` becomes `import torch, sys` (sys is
# imported already: one more name bound) and each print inside a loop
# is preceded by a call that allocates nothing, so the counts, the
# collections and the printed lines are the plain recording's, which
# OUT/NAME.jsonl shows. Run from the repository root on the GPU machine:
#   sh scripts/gc_free_lists_rounds.sh OUT NAME...
set -u
out=${1:?usage: gc_free_lists_rounds.sh OUT NAME...}
shift
mkdir -p "$out"
for n in "$@"; do
	sed -e 's/^import torch$/import torch, sys/' \
		-e 's/^\( \{1,\}\)print(/\1sys._debugmallocstats()\n\1print(/' \
		"testdata/experiments/gc/$n.py" >"$out/$n.py"
	timeout 100 python3 scripts/record_gc.py "$out/$n.py" "$out/$n.jsonl" 2>"$out/$n.stderr" &
done
wait
