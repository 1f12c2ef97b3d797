#!/usr/bin/env bash
# Session 19, round 6 (the closing call): NOTES item 72 as committed (the fragments from the staged
# factors at B0 = 2 and 3 only; B0 = 1 and 4 compile to HEAD's PTX) against HEAD (base) at
# r = 9..24, then verify-round.sh on it (every gpu test, the inspector's, memcheck and racecheck,
# the benchmark with NPP, CuPy and PyTorch).
set -uo pipefail
BINS=${BINS:-build-ab11} OUT=${OUT:-/tmp/out}
BINS=$BINS OUT=$OUT app/bench/ab-round.sh --variants tensorstream --radii 9,12,16,20,24 --rounds 2 \
  base=base staged=convlive-bench > "$OUT/ab.log" 2>&1
echo "ab rc=$?"; tail -12 "$OUT/ab.log"
BINS=$BINS OUT=$OUT bash app/bench/verify-round.sh
