#!/usr/bin/env bash
# Session 18, round 1 (H100 or H200): tensorstream's channel form (CONVLIVE_TS_CHANNELS=1, r <= 8,
# tiles up to 64 wide) checked by the gpu tests and the sanitizers, then timed against HEAD (base)
# with the same build's one-warp-a-strip form (chan3) and the form capped at 56 registers (chan3@)
# or not (chan0@).
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
logged "$L" "channel form: tensorstream tests" "" 300 "$T" \
  --gtest_filter='TensorStreamStrips.*:AllVariants/VariantVsReference.tensorstream*:DependentLaunches.*' --gtest_brief=1
for tool in memcheck racecheck; do
  sanitized "$L" compute-sanitizer $tool 'TensorStreamStrips.Ring*:DependentLaunches.*' "$T"
done
unset CONVLIVE_TS_CHANNELS
summary "$L"
BINS=$BINS OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8 --rounds 2 \
  base=base chan3=chan3 chan3on=chan3@CONVLIVE_TS_CHANNELS=1 chan0on=chan0@CONVLIVE_TS_CHANNELS=1 > "$OUT/ab.log" 2>&1
tail -60 "$OUT/ab.log"
