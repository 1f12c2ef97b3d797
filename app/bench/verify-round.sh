#!/usr/bin/env bash
# The closing round of a kernel change on the GPU machine, in one call: every gpu test, the
# inspector's gpu tests, compute-sanitizer memcheck and racecheck on the named cases, then the
# benchmark with NPP, CuPy and PyTorch (gpu-round.sh bench npp peers). From the project root there,
# with .devbundle carried and the programs built here, stripped and xz-compressed into BINS:
#
#   BINS=build-ab OUT=$OUT app/bench/verify-round.sh
#
#   BINS/convlive_tests_gpu.xz, convlive_tests_inspect_gpu.xz, convlive-bench.xz   the programs
#   MEMCHECK, RACECHECK   gtest filters for the sanitizers (defaults: tensorstream's strip tests and
#                         the dependent-launch test; the ring and dependent-launch tests)
#   BENCH_ARGS            passed to convlive-bench (default: stream, tensorstream and tensor2d,
#                         gaussian r = 1..32 and 2D r = 8, 16, 32)
#   STEPS                 which of "tests sanitize bench" to run (default: all three)
#   SANITIZER             the compute-sanitizer program (default: compute-sanitizer on the PATH)
#
# Writes to $OUT (at most 8 files come back): tests-final.log, summary.md, and final.tar.xz with
# every result (bench.log, convlive.json/.csv, npp.json, peers.json, summary.csv, the plot, and
# shares.md/.csv: 1080p's share of the 4K throughput, app/bench/shares.py). Exits 1
# when a program cannot be unpacked, or a test or sanitizer failed (the benchmark still runs).
set -uo pipefail
BINS=${BINS:-build-ab}
OUT=${OUT:-/tmp/convlive-verify}
MEMCHECK=${MEMCHECK:-TensorStreamStrips.*:DependentLaunches.*}
RACECHECK=${RACECHECK:-TensorStreamStrips.Ring*:DependentLaunches.*}
STEPS=${STEPS:-tests sanitize bench}
SANITIZER=${SANITIZER:-compute-sanitizer}
BENCH_ARGS=${BENCH_ARGS:---variants stream,tensorstream,tensor2d --radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50}
[ -f .devbundle/env.sh ] && source .devbundle/env.sh
W=$(mktemp -d /tmp/verify-round.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT" "$W/bin" "$W/out"
source "$(dirname "$0")/steps.sh"
for f in convlive_tests_gpu convlive_tests_inspect_gpu convlive-bench; do unpack $f; done
L=$W/out/tests-final.log
gpuHeader "$L"
T=$W/bin/convlive_tests_gpu failed=0
if [[ " $STEPS " == *" tests "* ]]; then
  logged "$L" "convlive_tests_gpu (all)" "" 300 "$T" --gtest_brief=1 || failed=1
  logged "$L" convlive_tests_inspect_gpu "" 60 "$W/bin/convlive_tests_inspect_gpu" --gtest_brief=1 || failed=1
fi
if [[ " $STEPS " == *" sanitize "* ]]; then
  sanitized "$L" "$SANITIZER" memcheck "$MEMCHECK" "$T" || failed=1
  sanitized "$L" "$SANITIZER" racecheck "$RACECHECK" "$T" || failed=1
fi
summary "$L"
cp "$L" "$OUT/"
if [[ " $STEPS " == *" bench "* ]]; then
  OUT=$W/out BUILD=$W/bin BENCH_ARGS="$BENCH_ARGS" timeout 300 "$(dirname "$0")/gpu-round.sh" bench npp peers
  echo "benchmark rc=$?"
  nvidia-smi > "$W/out/nvidia-smi.log" 2>&1
  cp "$W/out/summary.md" "$OUT/" 2>/dev/null
  head -16 "$W/out/summary.md" 2>/dev/null
  grep -E "^\| (stream|tensorstream|tensor2d) " "$W/out/shares.md" 2>/dev/null
fi
tar -C "$W/out" -cJf "$OUT/final.tar.xz" .
((failed)) && echo "verify-round.sh: a test or sanitizer failed (tests-final.log says which)"
exit $failed
