#!/usr/bin/env bash
# 2026-11-26 session 16: stream, tensorstream and tensor2d launched as programmatic dependents
# (NOTES.md item 55): base = d6be02e; pdl = the change; pdl0 = the change launched as before (a
# knob of this build only, CONVLIVE_PDL_AB=0), so that the kernels' own edits show apart from
# the launch. Events around each launch and back to back; the full gpu tests first.
set -uo pipefail
source .devbundle/env.sh
BINS=build-ab28 OUT=$OUT/ab app/bench/ab-round.sh --variants stream,tensorstream,tensor2d --radii 1,2,4,16,32 \
  --rounds 2 --tests pdl-t --filter '*' base=base-cb pdl=pdl-cb pdl0=pdl-cb@CONVLIVE_PDL_AB=0
for f in $OUT/ab/*; do mv $f $OUT/$(basename ${f%.*})-round4.${f##*.}; done; rm -rf $OUT/ab
