#!/usr/bin/env bash
# 2026-11-26 session 16: the kept build (tensorstream dependent at r > 8, tensor2d dependent, stream
# as before) against d6be02e, events around each launch and back to back (NOTES.md item 55).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab29 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream,tensor2d,stream --radii 1,2,4,8,16,24,32 \
  --rounds 2 base=base-cb fin=fin-cb
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round6.${f##*.}; done; rm -rf $OUT/ab
