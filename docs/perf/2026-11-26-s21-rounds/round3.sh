#!/usr/bin/env bash
# Session 21, round 3: NOTES.md item 80, one-round grids linear (heavier blocks first) against the
# grid of rows, in one build (knob CONVLIVE_TS_LINEAR=1; BINS=build-ab20: convlive-bench and
# convlive_tests_gpu of the working tree on 7ffbe11); its tests and both sanitizers under the knob.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .devbundle/env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
BINS=${BINS:-build-ab20} OUT=$OUT bash app/bench/ab-round.sh --variants tensorstream --radii 1,2,4,8,16,24,32 \
  --rounds 2 --tests convlive_tests_gpu --filter 'TensorStreamStrips.*:*tensorstream*:DependentLaunches.*' \
  --sanitize 'TensorStreamStrips.Ring*:DependentLaunches.*' --tests-env CONVLIVE_TS_LINEAR=1 \
  head=convlive-bench lin=convlive-bench@CONVLIVE_TS_LINEAR=1
