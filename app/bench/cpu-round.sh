#!/usr/bin/env bash
# cpu-simd against OpenCV on this machine's CPUs, all cores: convlive-cpu-bench, then
# app/bench/cpu_peers.py on the same frames and weights, back to back, ROUNDS times alternating;
# the JSON of every round, the log, a markdown table with the ratios (results.md) and a README.md
# with the date, the commit and the CPU into OUT_DIR (default docs/perf/cpu-Ncore, N this
# machine's CPUs; the files of an earlier run there are replaced).
#   app/bench/cpu-round.sh [OUT_DIR]      BUILD (default build), ROUNDS (2), REPEATS (50), COMMIT (default git's HEAD)
# Needs python3-opencv for the system python (apt-get install python3-opencv).
set -euo pipefail
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-2}
REPEATS=${REPEATS:-50}
out_dir=${1:-docs/perf/cpu-$(nproc)core}
mkdir -p "$out_dir"
rm -f "$out_dir"/convlive-*.json "$out_dir"/opencv-*.json "$out_dir/results.md" "$out_dir/bench.log" "$out_dir/README.md"
frames=$(mktemp -d)
trap 'rm -rf "$frames"' EXIT
# On a shared machine: before each step, wait (up to 5 minutes) until other work leaves the CPUs
# under 15% busy over a second.
busy_percent() {
  local a b
  read -r _ a < /proc/stat
  sleep 1
  read -r _ b < /proc/stat
  python3 -c 'import sys; a, b = ([int(x) for x in s.split()] for s in sys.argv[1:]); d = [y - x for x, y in zip(a, b)]; print(int(100 * (1 - (d[3] + d[4]) / max(1, sum(d[:8])))))' "$a" "$b"
}
wait_quiet() {
  for _ in $(seq 300); do
    [ "$(busy_percent)" -lt 15 ] && return 0
  done
  echo "note: other work was running during this step" | tee -a "$out_dir/bench.log"
}
model=$(lscpu | sed -n 's/^Model name: *//p')
cores=$(nproc)
: > "$out_dir/bench.log"
convlive=() opencv=()
for round in $(seq "$ROUNDS"); do
  wait_quiet
  echo "--- round $round: convlive-cpu-bench" | tee -a "$out_dir/bench.log"
  "$BUILD/convlive-cpu-bench" --out "$out_dir/convlive-$round.json" --frames-dir "$frames" --repeats "$REPEATS" \
    2>&1 | tee -a "$out_dir/bench.log"
  wait_quiet
  echo "--- round $round: OpenCV" | tee -a "$out_dir/bench.log"
  /usr/bin/python3 app/bench/cpu_peers.py time --frames-dir "$frames" --convlive "$out_dir/convlive-$round.json" \
    --out "$out_dir/opencv-$round.json" --repeats "$REPEATS" 2>&1 | tee -a "$out_dir/bench.log"
  convlive+=("$out_dir/convlive-$round.json")
  opencv+=("$out_dir/opencv-$round.json")
done
/usr/bin/python3 app/bench/cpu_peers.py table --convlive "${convlive[@]}" --opencv "${opencv[@]}" \
  --md "$out_dir/results.md" --machine "$model, $cores cores ($(date +%F))"
# COMMIT names the build's commit where this tree's git cannot (a copy made elsewhere, or a build
# of another commit than the checkout's).
if [ -n "${COMMIT:-}" ]; then
  commit=$COMMIT
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit (with uncommitted changes)"
fi
{
  echo "# cpu-simd against OpenCV on $model ($cores CPUs)"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
  echo "| commit | $commit |"
  echo "| CPU | $model, $cores CPUs ($(lscpu | sed -n 's/^Flags:.*\(avx512f\).*/AVX-512/p; s/^Flags:.*\(avx2\).*/AVX2/p' | head -1)) |"
  echo "| run | \`ROUNDS=$ROUNDS REPEATS=$REPEATS app/bench/cpu-round.sh $out_dir\` |"
  echo
  echo "Made by \`app/bench/cpu-round.sh\`; how the figures are measured: docs/perf/METHOD.md."
  echo
  cat "$out_dir/results.md"
} > "$out_dir/README.md"
