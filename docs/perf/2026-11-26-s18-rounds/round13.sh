#!/usr/bin/env bash
# Session 18, round 13: the apron r rounded up to 8 at r > 8, computed at run time (round 12 made it
# a constant of the instance, and r <= 32 lost 5%), against HEAD (base); the strip tests and the
# inspector's first (the sanitizers ran in round 12 on the same apron values).
set -uo pipefail
BINS=${BINS:-build-ab5} OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .devbundle/env.sh
xz -dc "$BINS/convlive_tests_inspect_gpu.xz" > /tmp/ig && chmod +x /tmp/ig
{ echo "=== convlive_tests_inspect_gpu"; /tmp/ig --gtest_brief=1 2>&1 | tail -2; echo "rc=$?"; } > "$OUT/tests-inspect.log"
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 8,9,12,24,25,28,32 --rounds 2 \
  --tests convlive_tests_gpu --filter 'TensorStreamStrips.*:DependentLaunches.*' base=base apron=apron > "$OUT/ab.log" 2>&1
rc=$?
cat "$OUT/tests-inspect.log"; grep -E "^===|PASSED|FAILED|SUMMARY|rc=" "$OUT/tests.log"
tail -32 "$OUT/ab.log"
exit $rc
