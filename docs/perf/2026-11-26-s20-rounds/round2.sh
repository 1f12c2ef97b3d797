#!/usr/bin/env bash
# Session 20, round 2: NOTES item 74, tensorstream's weight fragments made once per mask on the host
# and fetched from memory at r = 5..8 (tensorStreamFetchedKernel; every other instance's PTX is
# HEAD's). One build, its A/B knob CONVLIVE_TS_FETCH_FROM: off = 9 (never fetched: HEAD's kernels),
# new = the default (r >= 5), all = 1 (every r <= 8). Under it first: the inspector's gpu tests,
# the tensorstream, strip, dependent-launch and mask-change tests, memcheck and racecheck on the ring, dependent-launch and mask-change tests.
set -uo pipefail
BINS=${BINS:-build-ab12} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
xz -dc "$BINS/convlive_tests_inspect_gpu.xz" > /tmp/ig && chmod +x /tmp/ig
{ echo "=== convlive_tests_inspect_gpu"; /tmp/ig --gtest_brief=1 2>&1 | tail -2; echo "rc=$?"; } > "$OUT/tests-inspect.log"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,5,6,8,16 --rounds 2 \
  --tests convlive_tests_gpu --filter '*tensorstream*:TensorStreamStrips.*:DependentLaunches.*:*MaskChanges*' --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*:*MaskChanges*tensorstream*' \
  off=new@CONVLIVE_TS_FETCH_FROM=9 new=new all=new@CONVLIVE_TS_FETCH_FROM=1 > "$OUT/ab.log" 2>&1
rc=$?
cat "$OUT/tests-inspect.log"; grep -E "^===|PASSED|FAILED|SKIPPED|SUMMARY|rc=" "$OUT/tests.log"
tail -40 "$OUT/ab.log"
exit $rc
