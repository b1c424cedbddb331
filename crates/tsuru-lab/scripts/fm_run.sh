#!/bin/bash
# The lent-machine run of docs/training.md ("A factorisation-machine term in the engine"),
# run from the repository root with the binary at .dev/tsuru (an x86-64-v3 build) and WTHOR
# at .dev/wthor; OUT is the folder whose file (fm.tar.gz) comes back. The run of 2026-11-27
# was `bash crates/tsuru-lab/scripts/fm_run.sh 16 60` (296 s); `POS=20 OUT=/tmp/o bash crates/tsuru-lab/scripts/fm_run.sh 2 10 60` is a
# quick local try (60 games a shard, 20 ProbCut positions).
# Issue 53 on a lent machine: samples from every self-play run, the shipped weights
# fine-tuned with (dim 8) and without (dim 0) an FM term on the GPU, quantised, measured,
# and their ProbCut statistics. Usage: crates/tsuru-lab/scripts/fm_run.sh THREADS TRAIN_SECONDS [QUICK_GAMES]
set -u
T=$1; SECS=$2; QUICK=${3:-0}
W=/tmp/fmw; mkdir -p $W $W/46 $W/47 $W/48; FINAL=${OUT:-/tmp/fmout}; OUT=$W/out; mkdir -p $OUT $FINAL
pack() { tar czf $FINAL/fm.tar.gz.part -C $OUT . && mv $FINAL/fm.tar.gz.part $FINAL/fm.tar.gz; }
B=./.dev/tsuru
start=$(date +%s); el() { echo "[$(( $(date +%s) - start )) s] $*"; }
for r in 46 47 48; do for f in data/selfplay-$r/*.txt.gz; do
  n=$(basename $f .gz)
  if [ $QUICK -gt 0 ]; then zcat $f | head -$QUICK > $W/$r/$n; else zcat $f > $W/$r/$n; fi
done; done
sp=$(for f in $W/4[678]/*.txt; do echo --selfplay $f; done)
el unpacked
$B train $sp --solve-empties 14 --labels solved --threads $T --export-samples $W/s.smp 2>&1 | tail -3
el exported; ls -la $W/s.smp
$B tables --weights crates/tsuru-core/src/eval/weights.tsw --export-fm $W/gen4.fmm
$B tables --weights crates/tsuru-core/src/eval/weights.tsw --check $W/s.smp --validation tests/fixtures/eval-validation.txt > $OUT/shipped.check 2>&1
for d in 8 0; do
  PYTHONUNBUFFERED=1 python3 crates/tsuru-lab/scripts/fm_train.py $W/s.smp --init $W/gen4.fmm --dim $d --epochs 40 \
      --time $SECS --threads 2 --out $W/fm$d.fmm > $OUT/train-d$d.log 2>&1 &
done; wait
el trained; for f in $OUT/train-d*.log; do tail -n 4 $f; done; pack
for d in 8 0; do
  $B tables --fm $W/fm$d.fmm --out $OUT/fm$d.tsw --check $W/s.smp \
      --validation tests/fixtures/eval-validation.txt > $OUT/fm$d.check 2>&1
done
el quantised; cat $OUT/*.check; pack
for d in 8 0; do
  ( $B probcut --eval-file $OUT/fm$d.tsw --endgame tests/fixtures/eval-validation.txt \
        --out $OUT/fm$d.tsw.probcut-endgame --threads $((T/2)) > $W/pce$d.log 2>&1
    $B probcut --eval-file $OUT/fm$d.tsw --wthor .dev/wthor --positions ${POS:-1500} \
        --out $OUT/fm$d.tsw.probcut --threads $((T/2)) > $W/pc$d.log 2>&1 ) &
done; wait
el probcut; ls -la $OUT; tail -2 $W/pc8.log; pack
