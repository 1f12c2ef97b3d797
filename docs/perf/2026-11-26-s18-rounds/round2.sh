#!/usr/bin/env bash
# Session 18, round 2: the channel form prefetching 1, 2 or 3 steps ahead (CONVLIVE_TS_AHEAD), at
# 85 registers (chan0) or 56 (chan3), against HEAD (base) at 1080p; its tests at depths 2 and 3.
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
W=$(mktemp -d) && mkdir -p "$W/bin" && source app/bench/steps.sh
L=$OUT/tests.log
gpuHeader "$L"
unpack convlive_tests_gpu
T=$W/bin/convlive_tests_gpu
export CONVLIVE_TS_CHANNELS=1
for a in 2 3; do
  export CONVLIVE_TS_AHEAD=$a
  logged "$L" "channel form, $a ahead: tensorstream tests" "" 300 "$T" \
    --gtest_filter='TensorStreamStrips.*:AllVariants/VariantVsReference.tensorstream_gaussian' --gtest_brief=1
done
sanitized "$L" compute-sanitizer racecheck 'TensorStreamStrips.Ring*' "$T"
unset CONVLIVE_TS_CHANNELS CONVLIVE_TS_AHEAD
summary "$L"
C=CONVLIVE_TS_CHANNELS=1,CONVLIVE_TS_AHEAD
BINS=$BINS OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,4,8 --sizes 1920x1080 --rounds 2 \
  base=base c0a1=chan0@${C}=1 c0a2=chan0@${C}=2 c0a3=chan0@${C}=3 c3a2=chan3@${C}=2 c3a3=chan3@${C}=3 > "$OUT/ab.log" 2>&1
tail -40 "$OUT/ab.log"
