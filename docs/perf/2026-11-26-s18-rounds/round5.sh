#!/usr/bin/env bash
# Session 18, round 5: tensorstream's pair form (CONVLIVE_TS_PAIRS=1: two warps a strip, each the
# row product of 8 of a step's rows and the column products of half its pixels) checked by the
# gpu tests and the sanitizers, then timed against HEAD (base) at every kernel's radii.
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
W=$(mktemp -d) && mkdir -p "$W/bin" && source app/bench/steps.sh
L=$OUT/tests.log
gpuHeader "$L"
unpack convlive_tests_gpu
T=$W/bin/convlive_tests_gpu
export CONVLIVE_TS_PAIRS=1
logged "$L" "pair form: tensorstream tests" "" 300 "$T" \
  --gtest_filter='TensorStreamStrips.*:AllVariants/VariantVsReference.tensorstream*:DependentLaunches.*' --gtest_brief=1
for tool in memcheck racecheck; do
  sanitized "$L" compute-sanitizer $tool 'TensorStreamStrips.Ring*:DependentLaunches.*' "$T"
done
unset CONVLIVE_TS_PAIRS
summary "$L"
BINS=$BINS OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,4,8,13,16,24,32 --rounds 2 \
  base=base pair=pair@CONVLIVE_TS_PAIRS=1 > "$OUT/ab.log" 2>&1
tail -40 "$OUT/ab.log"
