#!/usr/bin/env bash
# 2026-11-26 session 17: last-round.sh's benchmark (radii 1..32, 1080p first) did not show the 4K
# r=16 gain its A/B (radii 4,13,16,24, 4K first) did, with the same program. The same r=16 case three ways.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/o; mkdir -p $B; xz -dc build-ab49/convlive-bench.xz > $B/cb && chmod +x $B/cb
run() { $B/cb --variants tensorstream --repeats 50 --out-dir $B/$1 "${@:2}" > $B/$1.log 2>&1;
        echo "== $1: ${*:2}"; grep -E "gaussian +16 3840x2160" $B/$1.log | grep -E "64x256|64x272|64x128"; }
run a --radii 16
run b --radii 16 --sizes 3840x2160,1920x1080
run c --radii 8,16
run d --radii 13,16 --sizes 3840x2160,1920x1080
