#!/usr/bin/env bash
# 2026-11-26 session 17, round 1 (NOTES.md item 59): tensorstream at r > 8 input-stationary with the
# stored rows' alpha carried in registers (is: ptxas's own registers; cap: held to 96 / 128 / 168
# registers at B0 = 2 / 3 / 4, 20 / 16 / 12 warps an SM) against HEAD d5a6c10 (head). Each candidate's
# tensorstream and dependent-launch tests first; memcheck and racecheck on the capped one's strip
# and dependent-launch tests.
set -uo pipefail
source .devbundle/env.sh
mkdir -p /tmp/r1/bin
xz -dc build-ab39/is-t.xz > /tmp/r1/bin/is-t && chmod +x /tmp/r1/bin/is-t
F='TensorStreamStrips.*:*/tensorstream_*:DependentLaunches.*'
{ echo "=== is-t --gtest_filter=$F"; timeout 300 /tmp/r1/bin/is-t --gtest_filter="$F" --gtest_brief=1; echo "rc=$?"; } > $OUT/tests-is-round1.log 2>&1
grep -E "^===|PASSED|FAILED|SKIPPED|rc=" $OUT/tests-is-round1.log | head -20
BINS=build-ab39 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 4,16,24,32 --rounds 2 \
  --tests cap-t --filter "$F" --sanitize 'TensorStreamStrips.*:DependentLaunches.*' head=head-cb is=is-cb cap=cap-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round1.${f##*.}; done; rm -rf $OUT/ab
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK|rc=" $OUT/tests-round1.log
cat $OUT/ab-tensorstream-round1.txt
