#!/usr/bin/env bash
# Last call (2026-11-26, NOTES.md item 37): tensorstream with the edge columns ahead only past one
# wave (the rule ab4 supports), against HEAD (a423064) in a same-call A/B, the whole gpu test
# program, inspect_gpu, memcheck and racecheck, then the full benchmark with NPP, CuPy and PyTorch.
# From the project root with .devbundle and BINS (build-ab4: xz'd stripped programs, sm_90).
# Everything goes into $OUT/round2.tar.xz; the A/B table, tests log and summary beside it.
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab4}
B=/tmp/ab/bin
mkdir -p $B/tests /tmp/r2
for f in head-convlive-bench new-convlive-bench new-convlive_tests_gpu new-convlive_tests_inspect_gpu; do
  xz -dc "$BINS/$f.xz" > $B/$f && chmod +x $B/$f || { echo "cannot unpack $BINS/$f.xz"; exit 1; }
done
cp $B/new-convlive-bench $B/convlive-bench
R=/tmp/r2
L=$R/tests-final2.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
T=$B/new-convlive_tests_gpu
echo "=== convlive_tests_gpu (all)" >> $L
timeout 200 $T --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== inspect_gpu" >> $L
timeout 60 $B/new-convlive_tests_inspect_gpu --gtest_brief=1 >> $L 2>&1
echo "rc=$?" >> $L
echo "=== memcheck" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.*:*/tensorstream_gaussian:*/tensorstream_pitch_h:StreamSmallRadii.*' --gtest_brief=1 >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  --gtest_filter='TensorStreamStrips.Ring*:*/tensorstream_gaussian' --gtest_brief=1 >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
cp $L $OUT/
ARGS="--variants tensorstream --radii 1,2,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
runs=()
for round in 1 2; do
  for cfg in head new; do
    timeout 150 $B/$cfg-convlive-bench $ARGS --out-dir /tmp/ab/$cfg-$round > /tmp/ab/$cfg-$round.log 2>&1 ||
      { echo "bench $cfg-$round failed:"; tail -3 /tmp/ab/$cfg-$round.log; }
    runs+=("$cfg-$round=/tmp/ab/$cfg-$round")
  done
done
python3 app/bench/ab.py --variant tensorstream "${runs[@]}" > $OUT/ab5-tensorstream.txt 2>&1
cat $OUT/ab5-tensorstream.txt
OUT=$R BUILD=$B BENCH_ARGS="--variants stream,tensorstream,fused,tensor2d --radii 1,2,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 400 app/bench/gpu-round.sh bench npp peers
cp $R/summary.md $OUT/ 2>/dev/null
tar -C $R -cJf $OUT/round2.tar.xz .
