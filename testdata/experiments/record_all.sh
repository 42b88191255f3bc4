#!/bin/bash
# Records, in real PyTorch, every experiment (testdata/experiments/*.py), rule
# script (testdata/pyrules/*.py) and seed (scripts/seed000.py, seed003.py)
# through scripts/record_script.py, one python3 process each (60 s at most),
# into OUTDIR/{experiments,pyrules,seeds}/NAME.{jsonl,stdout,stderr}, with
# each one's exit status in OUTDIR/DIR/rc.txt and the versions in
# OUTDIR/env.txt. Run from the repository root on a machine with one GPU:
#
#     testdata/experiments/record_all.sh OUTDIR
#
# The experiments whose memory depends on what else holds the GPU (cuDNN
# picks its convolution workspace from the free memory) and the one that
# takes 40 GiB run one after another; the rest run 6 at a time beside them.
set -u
out=$1
mkdir -p "$out/experiments" "$out/pyrules" "$out/seeds"
export PYTHONUNBUFFERED=1 out

one() {  # one DIR SCRIPT: record SCRIPT into $out/DIR
    local name
    name=$(basename "$2" .py)
    timeout 60 python3 scripts/record_script.py "$2" "$out/$1/$name.jsonl" \
        >"$out/$1/$name.stdout" 2>"$out/$1/$name.stderr"
    echo "$name $?" >>"$out/$1/rc.txt"
}
export -f one

{
    python3 --version
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
} >"$out/env.txt" 2>&1

alone="forum_reserved_conv_maxpool issue_conv3d_memory issue_conv2d_workspace issue_gc_cycle_garbage issue_conv2d_fp32_peak issue_conv2d_fp16_peak"
(for name in $alone; do one experiments "testdata/experiments/$name.py"; done) &
{
    for f in testdata/experiments/*.py; do
        case " $alone " in *" $(basename "$f" .py) "*) ;; *) echo "experiments $f" ;; esac
    done
    for f in testdata/pyrules/*.py; do echo "pyrules $f"; done
    echo "seeds scripts/seed000.py"
    echo "seeds scripts/seed003.py"
} | xargs -P 6 -L 1 bash -c 'one "$0" "$1"'
wait
