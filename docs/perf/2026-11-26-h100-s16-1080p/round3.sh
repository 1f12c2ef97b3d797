#!/usr/bin/env bash
# 2026-11-26 session 16: item 53 as kept (two steps ahead only at r > 24 past one round of blocks;
# the first steps asked for before the weights) against HEAD, the full gpu tests and both
# sanitizers on the ring test (which now has a two-steps-ahead launch), then the new build's
# benchmark of stream, tensorstream and tensor2d with its back-to-back column (item 54).
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab27 OUT=$OUT/ab app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16,24,32 --rounds 2 \
  --tests new-t --filter '*' --sanitize 'TensorStreamStrips.Ring*' head=head-cb new=new-cb
mv $OUT/ab/tests.log $OUT/tests-round3.log; mv $OUT/ab/ab-tensorstream.txt $OUT/ab3-tensorstream.txt; rm -rf $OUT/ab
B=/tmp/v/bin; mkdir -p $B
xz -dc build-ab27/new-cb.xz > $B/b && chmod +x $B/b || exit 1
$B/b --variants stream,tensorstream,tensor2d --radii 1,2,4,8,16,32 --custom-radii 8 --sizes 1920x1080,3840x2160 \
  --repeats 50 --out-dir /tmp/v/o > $OUT/bench3.log 2>&1
echo "bench rc=$?"; cp /tmp/v/o/convlive.json $OUT/convlive3.json
grep -E "device|empty|frame copy" $OUT/bench3.log
