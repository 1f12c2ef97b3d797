# Sourced by ab-round.sh and verify-round.sh: the steps both take on the GPU machine. They expect
# BINS (the xz-compressed programs) and W (the script's scratch folder, with W/bin) to be set.

# unpack NAME: BINS/NAME.xz -> W/bin/NAME, once; exits 1, naming it, when it cannot.
unpack() {
  [ -x "$W/bin/$1" ] && return 0
  xz -dc "$BINS/$1.xz" > "$W/bin/$1" && chmod +x "$W/bin/$1" ||
    { echo "$(basename "$0"): cannot unpack $BINS/$1.xz" >&2; exit 1; }
}

# gpuHeader LOG: starts LOG with the GPU's name, driver, clocks and temperature.
gpuHeader() {
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>&1 ||
      echo "no nvidia-smi here"; } > "$1"
}

# logged LOG TITLE RC_PREFIX SECONDS PROGRAM [ARGS...]: appends "=== TITLE", the program's output
# (under timeout SECONDS) and "RC_PREFIXrc=N" to LOG; returns N.
logged() {
  local log=$1 title=$2 prefix=$3 seconds=$4 rc
  shift 4
  echo "=== $title" >> "$log"
  timeout "$seconds" "$@" >> "$log" 2>&1
  rc=$?
  echo "${prefix}rc=$rc" >> "$log"
  return $rc
}

# sanitized LOG SANITIZER TOOL FILTER PROGRAM: PROGRAM's cases FILTER under compute-sanitizer TOOL
# (memcheck, racecheck), logged; returns its status (9 for the errors it found).
sanitized() {
  logged "$1" "compute-sanitizer --tool $3, --gtest_filter=$4" "$3 " 250 "$2" --tool "$3" --error-exitcode 9 "$5" \
    --gtest_filter="$4" --gtest_brief=1
}

# summary LOG: the lines of LOG that say how each step went.
summary() { grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|RACECHECK SUMMARY|rc=|Failure" "$1"; }
