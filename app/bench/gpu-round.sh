#!/usr/bin/env bash
# One round on the GPU machine (see ../shared/device/README.md): tests, kernel benchmark, peers,
# plot. Run from the project root there with the build folder BUILD (default build-dev) and
# .devbundle carried; results go to $OUT (at most 8 files come back).
#   app/bench/gpu-round.sh [tests] [sanitize] [bench] [peers] [npp] [pipeline] [viewer]
#   (default: tests bench peers npp). SANITIZE_FILTER picks the gtest cases run under
#   compute-sanitizer (memcheck, then racecheck); NPP_ARGS and PEERS_ARGS pass options on.
set -uo pipefail
BUILD=${BUILD:-build-dev}
OUT=${OUT:-/tmp/convlive-out}
mkdir -p "$OUT"
source .devbundle/env.sh
export PYTHONUNBUFFERED=1
steps=${*:-tests bench peers npp}
# At most 8 files come back: tests.log, bench.log (with the peers' log), convlive.json/.csv,
# peers.json, and the plot's summary.md, summary.csv and mpix_vs_radius.png (verify-round.sh packs
# them, with shares.md/.csv: 1080p's share of the 4K throughput, into one archive).
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv | tee "$OUT/tests.log"
for step in $steps; do
  case $step in
    tests)
      export CONVLIVE_EXE=$PWD/$BUILD/convlive
      echo "repo root here: $PWD" >> "$OUT/tests.log"
      if grep -q "$PWD/$BUILD" "$BUILD/CTestTestfile.cmake" 2>/dev/null; then
        (cd "$BUILD" && timeout 400 ctest -j 4 --output-on-failure 2>&1) | tee -a "$OUT/tests.log" | tail -8
      else  # the build folder was made under another path: run the test programs themselves
        timeout 300 "$BUILD/tests/convlive_tests_gpu" --gtest_brief=1 2>&1 | tee -a "$OUT/tests.log" | tail -5
        for t in convlive_tests_cpu convlive_tests_pipeline_gpu convlive_tests_pipeline_cpu convlive_tests_view \
                 convlive_tests_viewer convlive_tests_viewer_gpu; do
          timeout 200 "$BUILD/tests/$t" --gtest_brief=1 2>&1 | tee -a "$OUT/tests.log" | tail -3
        done
        grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/tests.log"
      fi
      ;;
    bench)
      nvidia-smi dmon -s pc -d 1 > /tmp/clocks.txt 2>&1 &
      dmon=$!
      timeout 300 "$BUILD/convlive-bench" --out-dir "$OUT" ${BENCH_ARGS:-} 2>&1 > "$OUT/bench.log"
      echo "bench rc=$?"; tail -3 "$OUT/bench.log"
      kill $dmon 2>/dev/null
      { echo "--- nvidia-smi dmon during the benchmark (power W, temperatures, SM and memory clocks MHz)"; cat /tmp/clocks.txt; } >> "$OUT/bench.log"
      awk 'NR>2 && $1 ~ /^[0-9]/ {print $(NF-1)}' /tmp/clocks.txt | sort -n | uniq -c | sort -rn | head -4 | sed 's/^/sm clock count: /' 
      ;;
    pipeline)
      timeout 500 app/bench/pipeline-bench.sh "$BUILD" > "$OUT/pipeline.log" 2>&1
      echo "pipeline rc=$?"; tail -24 "$OUT/pipeline.log"
      ;;
    viewer)
      timeout 500 app/bench/viewer-bench.sh "$BUILD" > "$OUT/viewer.log" 2>&1
      echo "viewer rc=$?"; tail -22 "$OUT/viewer.log"
      ;;
    sanitize)
      filter=${SANITIZE_FILTER:-*/stream_gaussian:*/stream_pitch_h:*RingStagesAtEveryDepth*:*Tensor2DProducts*:*tensor2d_custom*}
      for tool in memcheck racecheck; do
        echo "--- compute-sanitizer --tool $tool, gtest filter $filter" >> "$OUT/tests.log"
        timeout 280 compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/convlive_tests_gpu" \
          --gtest_filter="$filter" --gtest_brief=1 >> "$OUT/tests.log" 2>&1
        echo "sanitize $tool rc=$?"; tail -3 "$OUT/tests.log"
      done
      ;;
    npp)
      # NPP lives on the GPU machine only: build the peer there.
      if nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/npp-peer app/bench/npp_peer.cu -lnppif -lnppc >> "$OUT/bench.log" 2>&1; then
        timeout 200 /tmp/npp-peer --out "$OUT/npp.json" ${NPP_ARGS:-} >> "$OUT/bench.log" 2>&1
        echo "npp rc=$?"; tail -5 "$OUT/bench.log"
      else
        echo "npp: the peer did not build (see bench.log)"; tail -20 "$OUT/bench.log"
      fi
      ;;
    peers)
      timeout 240 python3 app/bench/peers.py --out "$OUT/peers.json" ${PEERS_ARGS:-} >> "$OUT/bench.log" 2>&1
      echo "peers rc=$?"; tail -12 "$OUT/bench.log"
      ;;
  esac
done
if [ -f "$OUT/convlive.json" ]; then
  peers=()
  for f in "$OUT/peers.json" "$OUT/npp.json"; do [ -f "$f" ] && peers+=("$f"); done
  ((${#peers[@]})) && peers=(--peers "${peers[@]}")
  python3 app/bench/plot.py --convlive "$OUT/convlive.json" "${peers[@]}" --out-dir "$OUT" 2>&1 | tail -12
  # 1080p's share of the 4K throughput, each variant's best tile (issue 9's small-frame target).
  python3 app/bench/shares.py --convlive "$OUT/convlive.json" --out-dir "$OUT" > /dev/null
fi
