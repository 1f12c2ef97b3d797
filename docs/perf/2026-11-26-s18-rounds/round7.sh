#!/usr/bin/env bash
# Session 18, round 7: tensorstream at r > 8 summing in fp16 (CONVLIVE_TS_HALFACC=1: the
# f16-accumulating mma, r=32 176 -> 122 registers), forced for every mask, so only the gaussian
# and box cases are expected to hold 1 LSB; then timed against HEAD (base).
set -uo pipefail
BINS=${BINS:-build-ab1} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
W=$(mktemp -d) && mkdir -p "$W/bin" && source app/bench/steps.sh
L=$OUT/tests.log
gpuHeader "$L"
unpack convlive_tests_gpu
T=$W/bin/convlive_tests_gpu
export CONVLIVE_TS_HALFACC=1
logged "$L" "fp16 sums: tensorstream gaussian and box" "" 300 "$T" \
  --gtest_filter='AllVariants/VariantVsReference.tensorstream_gaussian:AllVariants/VariantVsReference.tensorstream_box' --gtest_brief=1
logged "$L" "fp16 sums: the whole strip test (sharpen and bright box may pass the bound)" "" 300 "$T" \
  --gtest_filter='TensorStreamStrips.Every*' --gtest_brief=1
sanitized "$L" compute-sanitizer racecheck 'TensorStreamStrips.Ring*' "$T"
unset CONVLIVE_TS_HALFACC
summary "$L"
BINS=$BINS OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 8,9,13,16,20,24,28,32 --rounds 2 \
  base=base half=half@CONVLIVE_TS_HALFACC=1 > "$OUT/ab.log" 2>&1
tail -40 "$OUT/ab.log"
