#!/usr/bin/env bash
# 2026-11-26 session 15, call 7: edge columns split at any even height (CONVLIVE_TS_ANYSPLIT=1, a
# knob of this build only: the schedule halves an edge column's segments even when the half is not
# a multiple of 16 rows; its last step then computes rows it does not store), so that 64x272 (8 even
# segments: 2 waves at r=32), 64x240 and 64x208 get split edges too. The gpu tests under the knob
# first (the schedule's every-row test and the strips' tests), then an A/B, two rounds.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B
for f in exp-bench convlive_tests_gpu; do xz -dc build-ab23/$f.xz > $B/$f && chmod +x $B/$f || exit 1; done
L=$OUT/tests.log
CONVLIVE_TS_ANYSPLIT=1 timeout 150 $B/convlive_tests_gpu --gtest_filter='TensorStream*:*tensorstream*:MaskChanges*' --gtest_brief=1 > $L 2>&1; echo "rc=$?" >> $L
grep -E "PASSED|FAILED|SKIPPED|rc=" $L
cp $B/exp-bench $B/exp2
BINS=/tmp/v/binxz; mkdir -p $BINS; cp build-ab23/exp-bench.xz $BINS/
BINS=$BINS OUT=$OUT timeout 240 app/bench/ab-round.sh --variants tensorstream --radii 8,16,24,32 --sizes 3840x2160,1920x1080 \
  --rounds 2 --repeats 30 base=exp-bench split=exp-bench@CONVLIVE_TS_ANYSPLIT=1 | tail -12
