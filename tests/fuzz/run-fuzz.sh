#!/usr/bin/env bash
# Long fuzz runs with libFuzzer: builds the fuzz targets with clang (tests/fuzz/CMakeLists.txt on
# its own, over an existing project build's libraries) and runs each for SECONDS, starting from its
# seed corpus. New inputs that reach new code go to $WORK/corpus/<target>/ (the seeds are left as
# they are); a crash is written to $WORK/crash-<target>-* and stops that target.
#
#   tests/fuzz/run-fuzz.sh [SECONDS] [TARGET...]      default: 60 seconds, every target
#
#   BUILD=build          the project's build folder, built (its libconvlive.so and app libraries)
#   WORK=$BUILD/fuzz     where the libFuzzer build, the grown corpora and crashes go
#   CXX=clang++-14       a clang with libFuzzer (Debian: clang-14; its libclang-rt has libFuzzer)
#   JOBS=1               parallel fuzzing jobs per target (libFuzzer -jobs)
#
# A crash found becomes a regression input: copy it into tests/fuzz/corpus/<target>/ (ctest then
# replays it on every build) and fix the reader.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-60}"
shift || true
build="$(cd "${BUILD:-$root/build}" && pwd)"
work="${WORK:-$build/fuzz}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
cxx="${CXX:-clang++-14}"
jobs="${JOBS:-1}"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(weights_text weights_npy png jpeg tiff npy_picture tune_cache roofs command_line caps)

if ! command -v "$cxx" >/dev/null; then
  echo "run-fuzz: $cxx is missing: apt-get install clang-14 (or set CXX to a clang++ with libFuzzer)" >&2
  exit 2
fi
if [[ ! -f "$build/libconvlive.so" ]]; then
  echo "run-fuzz: $build is not a built convlive build folder: build the project first (./run.sh build) or set BUILD" >&2
  exit 2
fi
cmake -S "$root/tests/fuzz" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$cxx" -DCONVLIVE_BUILD_DIR="$build" >/dev/null
cmake --build "$work/build" --target "${targets[@]/#/convlive_fuzz_}"

# Several jobs run as libFuzzer's -jobs (each writes fuzz-N.log: into $WORK); one runs in place.
parallel=()
[[ "$jobs" -gt 1 ]] && parallel=(-jobs="$jobs" -workers="$jobs")
cd "$work"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t"
  echo "== $t: $seconds s"
  # GStreamer 1.22's caps parser itself leaks on some malformed text (gst_caps_from_string of
  # 'video/x-raw,normat={NV12,I420RGBA,width=1,height=},width=[1,100T,height=4' returns null and
  # leaks 16 KB in GLib allocations): leaks are not GStreamer's to find here.
  leaks=()
  asan="protect_shadow_gap=0"  # the CUDA runtime maps memory where ASan keeps its gap
  [[ $t == caps ]] && leaks=(-detect_leaks=0) && asan+=":detect_leaks=0"
  if ! ASAN_OPTIONS="$asan:${ASAN_OPTIONS:-}" "$work/build/convlive_fuzz_$t" \
    -max_total_time="$seconds" "${parallel[@]}" "${leaks[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$work/crash-$t-" -print_final_stats=1 \
    "$work/corpus/$t" "$root/tests/fuzz/corpus/$t"; then
    failed+=("$t")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run-fuzz: findings in: ${failed[*]} (inputs in $work/crash-*)" >&2
  exit 1
fi
echo "run-fuzz: ${#targets[@]} targets ran $seconds s each with no finding"
