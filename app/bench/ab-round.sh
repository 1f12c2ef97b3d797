#!/usr/bin/env bash
# A same-call A/B of kernel builds on the GPU machine (docs/perf/NOTES.md's loop: predict, change,
# measure against HEAD in one call). From the project root there, with .devbundle carried and the
# programs built here, stripped and xz-compressed into BINS (a 19 MB program is 2.4 MB so; several
# builds fit the 64 MiB carry):
#
#   BINS=build-ab app/bench/ab-round.sh [options] LABEL=PROGRAM[@ENV=VAL,ENV=VAL] ...
#
#   LABEL=PROGRAM  a build to time: BINS/PROGRAM.xz (a convlive-bench), under the environment given
#                  after '@' (an A/B knob); the first is the one the others are compared with
#   --variants a,b --radii 1,2 --sizes WxH,WxH --repeats N   passed to convlive-bench (defaults:
#                  stream,tensorstream; 1,2,4,8,16,24,32; 3840x2160,1920x1080; 50)
#   --rounds N     interleaved rounds of every build (default 2), in the order given, then reversed
#   --tests PROGRAM --filter GTEST_FILTER   a gtest program in BINS (xz) run first, then
#   --sanitize GTEST_FILTER                 memcheck and racecheck on those of its cases
#   --tests-env ENV=VAL,ENV=VAL             the environment of those runs (a build's A/B knob, so
#                                           that its tests check the form it times)
#
# Writes to $OUT (at most 8 files come back): tests.log, and ab-VARIANT.txt for each variant
# (app/bench/ab.py: each case's best tile per run, each later build's ratio to the first; events
# around each launch, then back to back where the builds time that). Exits 1
# when a program cannot be unpacked or a benchmark run failed (each one named), 2 on a bad command.
set -uo pipefail
variants=stream,tensorstream radii=1,2,4,8,16,24,32 sizes=3840x2160,1920x1080 repeats=50 rounds=2
tests="" filter="*" sanitize="" tests_env=""
builds=()
while (($#)); do
  case $1 in
    --variants) variants=$2; shift 2 ;;
    --radii) radii=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    --sanitize) sanitize=$2; shift 2 ;;
    --tests-env) tests_env=$2; shift 2 ;;
    -*) echo "ab-round.sh: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
    *=*) builds+=("$1"); shift ;;
    *) echo "ab-round.sh: '$1' is not LABEL=PROGRAM[@ENV=VAL,...]" >&2; exit 2 ;;
  esac
done
((${#builds[@]})) || { echo "ab-round.sh: name at least one build, LABEL=PROGRAM" >&2; exit 2; }
BINS=${BINS:-build-ab}
OUT=${OUT:-/tmp/convlive-ab}
W=$(mktemp -d /tmp/ab-round.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT" "$W/bin"
[ -f .devbundle/env.sh ] && source .devbundle/env.sh
source "$(dirname "$0")/steps.sh"
L=$OUT/tests.log
gpuHeader "$L"
if [ -n "$tests" ]; then
  unpack "$tests"
  T=$W/bin/$tests
  (
    for kv in ${tests_env//,/ }; do export "$kv"; done
    logged "$L" "$tests --gtest_filter=$filter${tests_env:+ under $tests_env}" "" 300 "$T" --gtest_filter="$filter" \
      --gtest_brief=1
    if [ -n "$sanitize" ]; then
      for tool in memcheck racecheck; do sanitized "$L" compute-sanitizer $tool "$sanitize" "$T"; done
    fi
  )
  summary "$L"
fi
runs=() failed=0
# Odd rounds run the builds in the order given, even rounds in reverse: a build that always ran
# second measured 2% slower than the same code run first (NOTES.md item 77, 4K r=16).
for ((round = 1; round <= rounds; ++round)); do
  order=("${builds[@]}")
  if ((round % 2 == 0)); then
    order=()
    for ((i = ${#builds[@]} - 1; i >= 0; --i)); do order+=("${builds[i]}"); done
  fi
  for spec in "${order[@]}"; do
    label=${spec%%=*} rest=${spec#*=}
    program=${rest%%@*} knobs=""
    [[ $rest == *@* ]] && knobs=${rest#*@}
    unpack "$program"
    run=$W/$label-$round
    env ${knobs//,/ } timeout 200 "$W/bin/$program" --variants "$variants" --radii "$radii" --sizes "$sizes" \
      --repeats "$repeats" --out-dir "$run" > "$run.log" 2>&1 ||
      { echo "bench $label-$round failed:"; tail -3 "$run.log"; failed=1; }
  done
  for spec in "${builds[@]}"; do runs+=("${spec%%=*}-$round=$W/${spec%%=*}-$round"); done  # the table's order
done
for v in ${variants//,/ }; do
  { python3 "$(dirname "$0")/ab.py" --variant "$v" "${runs[@]}"
    python3 "$(dirname "$0")/ab.py" --variant "$v" --metric back_to_back_ms "${runs[@]}"; } > "$OUT/ab-$v.txt" 2>&1
  cat "$OUT/ab-$v.txt"
done
exit $failed
