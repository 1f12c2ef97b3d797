#!/usr/bin/env bash
# cpu-simd against OpenCV on this machine's CPUs, all cores: convlive-cpu-bench, then
# app/bench/cpu_peers.py on the same frames and weights, back to back, ROUNDS times alternating;
# the JSON of every round, the log and a markdown table with the ratios into OUT_DIR.
#   app/bench/cpu-round.sh [OUT_DIR]      BUILD (default build), ROUNDS (2), REPEATS (50)
# Needs python3-opencv for the system python (apt-get install python3-opencv).
set -euo pipefail
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-2}
REPEATS=${REPEATS:-50}
OUT=${1:-docs/perf/$(date +%F)-cpu-$(hostname -s)}
mkdir -p "$OUT"
frames=$(mktemp -d)
trap 'rm -rf "$frames"' EXIT
# A shared build machine: before each step, wait (up to 5 minutes) until other work leaves the
# CPUs under 15% busy over a second.
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
  echo "note: other work was running during this step" | tee -a "$OUT/bench.log"
}
model=$(lscpu | sed -n 's/^Model name: *//p')
cores=$(nproc)
: > "$OUT/bench.log"
convlive=() opencv=()
for round in $(seq "$ROUNDS"); do
  wait_quiet
  echo "--- round $round: convlive-cpu-bench" | tee -a "$OUT/bench.log"
  "$BUILD/convlive-cpu-bench" --out "$OUT/convlive-$round.json" --frames-dir "$frames" --repeats "$REPEATS" \
    2>&1 | tee -a "$OUT/bench.log"
  wait_quiet
  echo "--- round $round: OpenCV" | tee -a "$OUT/bench.log"
  /usr/bin/python3 app/bench/cpu_peers.py time --frames-dir "$frames" --convlive "$OUT/convlive-$round.json" \
    --out "$OUT/opencv-$round.json" --repeats "$REPEATS" 2>&1 | tee -a "$OUT/bench.log"
  convlive+=("$OUT/convlive-$round.json")
  opencv+=("$OUT/opencv-$round.json")
done
/usr/bin/python3 app/bench/cpu_peers.py table --convlive "${convlive[@]}" --opencv "${opencv[@]}" \
  --md "$OUT/results.md" --machine "$model, $cores cores ($(date +%F))"
