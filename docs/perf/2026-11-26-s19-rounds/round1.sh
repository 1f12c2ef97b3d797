#!/usr/bin/env bash
# Session 19, round 1: session 18's round 13 (NOTES item 71: the window r rounded up to 8 at r > 8,
# computed at run time) against HEAD 518496b (base), with the whole gpu suite on the apron build and
# the sanitizers on the strip and dependent-launch tests.
set -uo pipefail
BINS=${BINS:-build-ab6} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
xz -dc "$BINS/convlive_tests_inspect_gpu.xz" > /tmp/ig && chmod +x /tmp/ig
{ echo "=== convlive_tests_inspect_gpu"; /tmp/ig --gtest_brief=1 2>&1 | tail -2; echo "rc=$?"; } > "$OUT/tests-inspect.log"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 4,8,9,12,16,24,25,28,32 --rounds 2 \
  --tests convlive_tests_gpu --sanitize 'TensorStreamStrips.*:DependentLaunches.*' base=base apron=apron > "$OUT/ab.log" 2>&1
rc=$?
cat "$OUT/tests-inspect.log"; grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -40 "$OUT/ab.log"
exit $rc
