#!/usr/bin/env bash
# Session 19, round 7: NOTES item 73, the weight fragments made once per mask on the host and
# copied in by every block with its first step's loads (frags), against HEAD 6065a34 (base, item
# 72's staged factors at r = 9..24). Under it first: the inspector's gpu tests, the whole gpu suite,
# memcheck on the strip and dependent-launch tests, racecheck on the ring and dependent-launch ones.
set -uo pipefail
BINS=${BINS:-build-ab12} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
xz -dc "$BINS/convlive_tests_inspect_gpu.xz" > /tmp/ig && chmod +x /tmp/ig
{ echo "=== convlive_tests_inspect_gpu"; /tmp/ig --gtest_brief=1 2>&1 | tail -2; echo "rc=$?"; } > "$OUT/tests-inspect.log"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,12,16,24,32 --rounds 2 \
  --tests convlive_tests_gpu --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' base=base frags=frags > "$OUT/ab.log" 2>&1
rc=$?
source .devbundle/env.sh
xz -dc "$BINS/convlive_tests_gpu.xz" > /tmp/tg && chmod +x /tmp/tg
{ echo "=== memcheck TensorStreamStrips.*:DependentLaunches.*"; timeout 150 compute-sanitizer --tool memcheck /tmp/tg --gtest_filter='TensorStreamStrips.*:DependentLaunches.*' --gtest_brief=1 2>&1 | tail -3; } >> "$OUT/tests-inspect.log"
cat "$OUT/tests-inspect.log"; grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -36 "$OUT/ab.log"
exit $rc
