#!/usr/bin/env bash
# 2026-11-26 session 16: tensorstream's rings prefetch up to 3 steps ahead where that keeps the
# grid's blocks resident, and the first steps are asked for before the weights are made (NOTES.md
# item 53). head against a1 (the new code held to one step ahead: the early loads alone) and auto
# (the launch's choice); the gpu tests of tensorstream with memcheck and racecheck on the ring test.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab26 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16,24,32 --rounds 2 \
  --tests new-t --filter 'TensorStreamStrips.*:*/tensorstream_*' --sanitize 'TensorStreamStrips.Ring*' \
  head=head-cb a1=new-cb@CONVLIVE_TS_AHEAD_AB=1 auto=new-cb
mv $OUT/ab/tests.log $OUT/tests-round2.log; mv $OUT/ab/ab-tensorstream.txt $OUT/ab2-tensorstream.txt; rm -rf $OUT/ab
