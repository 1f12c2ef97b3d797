#!/usr/bin/env bash
# The committed schedules (no knobs) on the GPU machine, one call: the gpu test programs, the
# sanitizers on the two changed kernels, and ncu (one launch per launch configuration, so each tile
# once) of tensorstream 4K and 1080p r=1 and r=32 and stream 4K r=2. From the project root with
# .devbundle and BINS (default build-ab2: stripped, xz-compressed programs built here for sm_90).
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab2}
B=/tmp/v/bin
mkdir -p $B/tests
for f in $BINS/*.xz; do
  n=$(basename $f .xz)
  case $n in convlive_tests_*) d=$B/tests ;; *) d=$B ;; esac
  xz -dc $f > $d/$n && chmod +x $d/$n || { echo "cannot unpack $f"; exit 1; }
done
L=$OUT/tests.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > $L
export CONVLIVE_EXE=$B/convlive
for t in convlive_tests_gpu convlive_tests_inspect_gpu convlive_tests_peaks_gpu convlive_tests_colour_gpu \
         convlive_tests_pipeline_gpu convlive_tests_viewer_gpu; do
  echo "=== $t" >> $L
  timeout 240 $B/tests/$t --gtest_brief=1 >> $L 2>&1
  echo "$t rc=$?" >> $L
done
T=$B/tests/convlive_tests_gpu
echo "=== memcheck" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_brief=1 \
  --gtest_filter='TensorStreamStrips.*:StreamSmallRadii.*:*/stream_gaussian:*/tensorstream_gaussian:*/stream_pitch_h:*/tensorstream_pitch_h' >> $L 2>&1
echo "memcheck rc=$?" >> $L
echo "=== racecheck" >> $L
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_brief=1 \
  --gtest_filter='TensorStreamStrips.Ring*:StreamSmallRadii.*:*/stream_gaussian:*/tensorstream_gaussian' >> $L 2>&1
echo "racecheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=" $L
NCU="ncu --filter-mode per-launch-config --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
Q="--repeats 20 --warmup 1 --warmup-ms 1 --frames 3"
timeout 150 $NCU -k regex:^tensorStreamKernel $B/convlive-bench --variants tensorstream --radii 1,32 --sizes 3840x2160,1920x1080 $Q --out-dir /tmp/v/ncu1 > $OUT/ncu-tensorstream.txt 2>&1
echo "ncu tensorstream rc=$?"
timeout 100 $NCU -k regex:^streamKernel $B/convlive-bench --variants stream --radii 1,2 --sizes 3840x2160 $Q --out-dir /tmp/v/ncu2 > $OUT/ncu-stream.txt 2>&1
echo "ncu stream rc=$?"
grep -c "Duration" $OUT/ncu-*.txt
