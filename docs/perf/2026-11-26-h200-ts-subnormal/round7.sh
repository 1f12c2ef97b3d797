#!/usr/bin/env bash
# 2026-11-26 session 14: round 6's sub (pixel pairs regrouped once a step, one PRMT a channel) against
# sub2 (the raw words kept, two PRMT a channel register, as the biased conversion was placed) and HEAD,
# where sub lost 3% (4K r=24).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab17 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 2,4,8,16,24,32 --rounds 2 \
  head=head-convlive-bench sub=sub-convlive-bench sub2=sub2-convlive-bench
mv $OUT/ab/ab-tensorstream.txt $OUT/ab7-tensorstream.txt; rm -rf $OUT/ab
cat $OUT/ab7-tensorstream.txt
