#!/usr/bin/env bash
# Session 19, round 3: NOTES item 72, the weight fragments made from a staged copy of the factors,
# inline (inline: ptxas B0=2 116 registers, B0=3 158, B0=4 178) or with the fragments out of line
# (outofline: 120, 158, 176), against HEAD (base). The gpu suite under both, memcheck and racecheck
# on the first.
set -uo pipefail
BINS=${BINS:-build-ab8} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
xz -dc "$BINS/tests_outofline.xz" > /tmp/to && chmod +x /tmp/to
{ echo "=== convlive_tests_gpu (outofline build)"; timeout 200 /tmp/to --gtest_brief=1 2>&1 | tail -3; echo "rc=$?"; } > "$OUT/tests-outofline.log"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,4,8,12,16,24,32 --rounds 2 \
  --tests convlive_tests_gpu --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' \
  base=base inline=inline outofline=outofline > "$OUT/ab.log" 2>&1
rc=$?
cat "$OUT/tests-outofline.log"; grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -32 "$OUT/ab.log"
exit $rc
