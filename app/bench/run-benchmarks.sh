#!/usr/bin/env bash
# The kernel benchmark on this machine's NVIDIA GPU, with the peers in the same run, written to
# docs/perf/MACHINE/ (what was there is replaced once the benchmark has succeeded):
#   - convlive-bench: every GPU variant, tile and radius (convlive.json, convlive.csv, bench.log);
#   - NVIDIA NPP (app/bench/npp_peer.cu, built here with nvcc) when NPP is installed (npp.json);
#   - CuPy and PyTorch (app/bench/peers.py) when python3 imports either (peers.json);
#   - plot.py: mpix_vs_radius.png, summary.md and summary.csv; shares.py: shares.md and shares.csv;
#   - typed-round.sh: every pixel type and batches against a copy of their bytes and NPP (typed/);
#   - README.md with the date, the commit, the GPU and the summary; nvidia-smi.log.
# Run after building (./run.sh build), from anywhere in the repository:
#
#   app/bench/run-benchmarks.sh [MACHINE]     MACHINE: the folder's name (default: from the GPU's
#                                             name, e.g. h100, h200, rtx-4090)
# Environment: BUILD (default build), BENCH_ARGS (convlive-bench's options; default below),
# NPP_ARGS and PEERS_ARGS (passed to the peers), TESTS=1 (also run the gpu-labelled tests into
# tests.log), GPU (the device to use: exported as CUDA_VISIBLE_DEVICES), COMMIT (the commit the
# results name; default git's HEAD).
# How the figures are measured: docs/perf/METHOD.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BENCH_ARGS=${BENCH_ARGS:---radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50}
smi=(nvidia-smi)
[ -n "${GPU:-}" ] && { export CUDA_VISIBLE_DEVICES=$GPU; smi+=(-i "$GPU"); }
say() { printf 'run-benchmarks.sh: %s\n' "$*" >&2; }

command -v nvidia-smi >/dev/null || { say "nvidia-smi is not here: this needs an NVIDIA GPU and its driver"; exit 1; }
[ -x "$BUILD/convlive-bench" ] || { say "$BUILD/convlive-bench is missing: build first (./run.sh build, or BUILD=DIR)"; exit 1; }
gpu=$("${smi[@]}" --query-gpu=name --format=csv,noheader | head -1)
driver=$("${smi[@]}" --query-gpu=driver_version --format=csv,noheader | head -1)
# "NVIDIA H100 80GB HBM3" -> h100, "NVIDIA GeForce RTX 4090" -> rtx-4090: the words up to the first
# with a digit.
machine=${1:-$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/nvidia//; s/geforce//' |
  awk '{ s = ""; for (i = 1; i <= NF; i++) { s = s (s ? "-" : "") $i; if ($i ~ /[0-9]/) break } print s }')}
machine=$(echo "$machine" | tr -c 'a-z0-9.\n-' '-')
[ -n "$machine" ] || { say "name the machine's folder: app/bench/run-benchmarks.sh NAME"; exit 2; }
dest=docs/perf/$machine

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
out=$scratch/$machine
mkdir -p "$out"
"${smi[@]}" > "$out/nvidia-smi.log" 2>&1

if [ "${TESTS:-0}" = 1 ]; then
  say "the gpu-labelled tests (ctest -L gpu)"
  (ctest --test-dir "$BUILD" -L gpu --output-on-failure 2>&1) > "$out/tests.log"
  tail -3 "$out/tests.log"
fi

say "convlive-bench $BENCH_ARGS on $gpu"
"${smi[@]}" dmon -s pc -d 1 > "$scratch/dmon.txt" 2>&1 &
dmon=$!
# shellcheck disable=SC2086  # BENCH_ARGS is a list of options
"$BUILD/convlive-bench" --out-dir "$out" $BENCH_ARGS > "$out/bench.log" 2>&1
rc=$?
kill "$dmon" 2>/dev/null
{ echo "--- nvidia-smi dmon during the benchmark (power W, temperatures, SM and memory clocks MHz)"
  cat "$scratch/dmon.txt"; } >> "$out/bench.log"
if [ $rc -ne 0 ] || [ ! -f "$out/convlive.json" ]; then
  tail -5 "$out/bench.log" >&2
  say "convlive-bench failed (exit $rc): $dest is left as it was"
  exit 1
fi

peers=()
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
if [ -n "$nvcc" ] && "$nvcc" -O2 -std=c++17 -arch=native -o "$scratch/npp-peer" app/bench/npp_peer.cu -lnppif -lnppc \
    > "$scratch/npp-build.log" 2>&1; then
  say "NPP"
  # shellcheck disable=SC2086
  "$scratch/npp-peer" --out "$out/npp.json" ${NPP_ARGS:-} >> "$out/bench.log" 2>&1 && peers+=("$out/npp.json")
else
  say "NPP: not timed (the NPP peer did not build here: no nvcc or no NPP)"
fi
if python3 -c 'import cupy' 2>/dev/null || python3 -c 'import torch' 2>/dev/null; then
  say "CuPy and PyTorch (app/bench/peers.py)"
  # shellcheck disable=SC2086
  python3 app/bench/peers.py --out "$out/peers.json" ${PEERS_ARGS:-} >> "$out/bench.log" 2>&1 && peers+=("$out/peers.json")
else
  say "CuPy and PyTorch: not timed (python3 imports neither)"
fi

# Every pixel type against the copy of its bytes, and NPP's functions for it (TYPED=0: not run).
if [ "${TYPED:-1}" != 0 ]; then
  say "every pixel type (app/bench/typed-round.sh)"
  BUILD=$BUILD app/bench/typed-round.sh "$out/typed" >> "$out/bench.log" 2>&1 || say "typed-round.sh failed: see bench.log"
fi

((${#peers[@]})) && peers=(--peers "${peers[@]}")
python3 app/bench/plot.py --convlive "$out/convlive.json" "${peers[@]}" --out-dir "$out" > /dev/null ||
  say "plot.py failed (is python3-matplotlib installed?): no plot or summary"
python3 app/bench/shares.py --convlive "$out/convlive.json" --out-dir "$out" > /dev/null ||
  say "shares.py: no case timed at both 1920x1080 and 3840x2160"

# COMMIT names the build's commit where this tree's git cannot (a copy made elsewhere, or a build
# of another commit than the checkout's).
if [ -n "${COMMIT:-}" ]; then
  commit=$COMMIT
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with uncommitted changes)"
fi
{
  echo "# convlive on an $gpu"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| commit | $commit |"
  echo "| card | $gpu, driver $driver |"
  echo "| benchmark | \`convlive-bench $BENCH_ARGS\` |"
  echo "| peers | $( ((${#peers[@]})) && echo "${peers[*]:1}" | sed "s#$out/##g" || echo none) |"
  echo
  echo "Made by \`app/bench/run-benchmarks.sh\`; how each figure is measured: [../METHOD.md](../METHOD.md)."
  echo
  [ -f "$out/summary.md" ] && cat "$out/summary.md" && echo
  [ -f "$out/mpix_vs_radius.png" ] && echo "![MPix/s against radius](mpix_vs_radius.png)" && echo
  [ -f "$out/shares.md" ] && cat "$out/shares.md"
  [ -f "$out/typed/README.md" ] && echo && echo "Every pixel type: [typed/](typed/README.md)."
} > "$out/README.md"

rm -rf "$dest"
mkdir -p docs/perf
mv "$out" "$dest"
say "results in $dest/ (README.md first)"
