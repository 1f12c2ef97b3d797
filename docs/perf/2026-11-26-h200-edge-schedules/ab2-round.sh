#!/usr/bin/env bash
# Second call (2026-11-26): tensorstream's edge segments halved (n2) against quartered (n4) and
# full (n1), two interleaved rounds, and ncu of one launch per launch configuration (so each tile
# once) of the new build under n2: tensorstream 4K r=32 and r=1, 1080p r=1 and r=32; stream 4K r=2.
set -uo pipefail
source .devbundle/env.sh
BINS=${BINS:-build-ab}
B=/tmp/ab/bin
mkdir -p $B
for f in new-convlive-bench; do
  xz -dc "$BINS/$f.xz" > $B/$f && chmod +x $B/$f || { echo "cannot unpack $BINS/$f.xz"; exit 1; }
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
ARGS="--variants tensorstream --radii 1,4,8,16,24,32 --sizes 3840x2160,1920x1080 --repeats 50"
runs=()
for round in 1 2; do
  for k in 1 2 4; do
    env CONVLIVE_TS_EDGE=$k CONVLIVE_STREAM_EDGE=2 timeout 120 $B/new-convlive-bench $ARGS --out-dir /tmp/ab/e$k-$round > /tmp/ab/e$k-$round.log 2>&1 ||
      { echo "bench e$k-$round failed:"; tail -3 /tmp/ab/e$k-$round.log; }
    runs+=("e$k-$round=/tmp/ab/e$k-$round")
  done
done
python3 app/bench/ab.py --variant tensorstream "${runs[@]}" > $OUT/ab2-tensorstream.txt 2>&1
cat $OUT/ab2-tensorstream.txt
NCU="ncu --filter-mode per-launch-config --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
Q="--repeats 20 --warmup 1 --warmup-ms 1 --frames 1"
export CONVLIVE_TS_EDGE=2 CONVLIVE_STREAM_EDGE=2
timeout 150 $NCU -k regex:^tensorStreamKernel $B/new-convlive-bench --variants tensorstream --radii 1,32 --sizes 3840x2160,1920x1080 $Q --out-dir /tmp/ab/ncu1 > $OUT/ncu-tensorstream.txt 2>&1
echo "ncu tensorstream rc=$?"
timeout 100 $NCU -k regex:^streamKernel $B/new-convlive-bench --variants stream --radii 2 --sizes 3840x2160 $Q --out-dir /tmp/ab/ncu2 > $OUT/ncu-stream.txt 2>&1
echo "ncu stream rc=$?"
grep -c "Duration" $OUT/ncu-*.txt
