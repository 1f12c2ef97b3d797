#!/usr/bin/env bash
# Every C++ and CUDA source is formatted as .clang-format says (a cpu-labelled test; CI runs it
# through ./run.sh test). Exit 77 (ctest: skipped, with this reason) when clang-format is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "skipped: clang-format is not installed (apt-get install clang-format; ./run.sh installs it)"
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
else
  mapfile -t files < <(find app cuda pipeline tests -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh')
fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "some files are not formatted: run clang-format -i on the files named above"
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
