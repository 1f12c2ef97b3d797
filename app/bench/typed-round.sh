#!/usr/bin/env bash
# Issue 35's round: convlive-bench --types (every pixel type against a copy of the same bytes, and
# the batches) and, where nvcc and NPP are here, npp-peer --types on the same types, then one table
# (typed_table.py): per type and radius the copy, convlive's best and its ratio to the copy, NPP's
# best and convlive's speed-up over it; then the batches' share of the single frame's throughput.
# Run from anywhere in the repository, after building convlive-bench:
#
#   app/bench/typed-round.sh [OUT_DIR]        OUT_DIR: default typed-results (in the current folder)
#
# Environment: BUILD (default build, relative to the repository root), TYPES (convlive's names, default all ten), RADII (default
# 1,2,4,8,16,32), SIZES (default 3840x2160), BATCHES (default 16x1920x1080,64x256x256; "none": no
# batches), BENCH_ARGS (more convlive-bench options, e.g. "--variants sweep --repeats 50"), NPP=0
# (skip NPP), NVCC_ARCH (default native), COMMIT (the commit README.md names; default git's HEAD).
# Writes OUT_DIR/typed.json, typed.csv, bench.log, npp-typed.json, npp.log, typed.md.
set -uo pipefail
OUT=$(realpath -m "${1:-typed-results}")  # from where it was called
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
TYPES=${TYPES:-u8x1,u8x3,u8x4,u16x1,u16x4,f16x1,f16x4,f32x1,f32x3,f32x4}
RADII=${RADII:-1,2,4,8,16,32}
SIZES=${SIZES:-3840x2160}
BATCHES=${BATCHES:-16x1920x1080,64x256x256}
say() { printf 'typed-round.sh: %s\n' "$*" >&2; }

[ -x "$BUILD/convlive-bench" ] || { say "$BUILD/convlive-bench is missing: build it first (BUILD=DIR names the build)"; exit 1; }
mkdir -p "$OUT" || { say "cannot make $OUT"; exit 1; }

batch_args=()
[ "$BATCHES" != none ] && batch_args=(--batches "$BATCHES")
say "convlive-bench --types $TYPES --sizes $SIZES ${batch_args[*]} --radii $RADII ${BENCH_ARGS:-}"
# shellcheck disable=SC2086  # BENCH_ARGS is a list of options
"$BUILD/convlive-bench" --types "$TYPES" --sizes "$SIZES" "${batch_args[@]}" --radii "$RADII" --out-dir "$OUT" \
  ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ] || [ ! -f "$OUT/typed.json" ]; then
  say "convlive-bench failed (exit $rc): see $OUT/bench.log"
  exit 1
fi

npp_args=()
if [ "${NPP:-1}" != 0 ]; then
  # convlive's type names -> NPP's: u8x1 -> 8u_C1, u16x4 -> 16u_C4, f32x3 -> 32f_C3 (NPP has no f16 filters)
  npp_types=$(echo "$TYPES" | tr ',' '\n' | sed -n 's/^u\([0-9]*\)x\([134]\)$/\1u_C\2/p; s/^f32x\([134]\)$/32f_C\1/p' |
    paste -sd, -)
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
  if [ -z "$npp_types" ]; then
    say "NPP: none of $TYPES has an NPP filter"
  elif [ -z "$nvcc" ]; then
    say "NPP: not timed (no nvcc here)"
  elif ! "$nvcc" -O2 -std=c++17 -arch="${NVCC_ARCH:-native}" -o "$OUT/npp-peer" app/bench/npp_peer.cu -lnppif -lnppc \
      > "$OUT/npp-build.log" 2>&1; then
    say "NPP: not timed (npp_peer.cu did not build: no NPP here? see $OUT/npp-build.log)"
  else
    say "npp-peer --types $npp_types --sizes $SIZES --radii $RADII"
    if "$OUT/npp-peer" --out "$OUT/npp-typed.json" --types "$npp_types" --sizes "$SIZES" --radii "$RADII" \
        > "$OUT/npp.log" 2>&1; then
      npp_args=(--npp "$OUT/npp-typed.json")
    else
      tail -3 "$OUT/npp.log" >&2
      say "npp-peer failed: the table has no NPP column"
    fi
  fi
fi

echo
python3 app/bench/typed_table.py --typed "$OUT/typed.json" "${npp_args[@]}" --out "$OUT/typed.md"
rc=$?

# README.md: when, what and where, then the table.
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
# COMMIT names the build's commit where this tree's git cannot (a copy made elsewhere, or a build
# of another commit than the checkout's).
if [ -n "${COMMIT:-}" ]; then
  commit=$COMMIT
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with uncommitted changes)"
fi
{
  echo "# convlive on every pixel type: ${gpu:-unknown GPU}"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| commit | $commit |"
  echo "| card | ${gpu:-unknown} |"
  echo "| benchmark | \`convlive-bench --types $TYPES --sizes $SIZES --batches $BATCHES --radii $RADII ${BENCH_ARGS:-}\` |"
  echo
  echo "Made by \`app/bench/typed-round.sh\`; how each figure is measured: [../../METHOD.md](../../METHOD.md)."
  echo
  [ -f "$OUT/typed.md" ] && cat "$OUT/typed.md"
} > "$OUT/README.md"
exit $rc
