#!/usr/bin/env bash
# The C++ package as a user gets it, for ctest (tests/CMakeLists.txt, the Consumer.* tests):
#   run-consumer.sh install BUILD PREFIX        cmake --install BUILD (the library's components) into PREFIX
#   run-consumer.sh headers PREFIX              every installed header compiles on its own
#   run-consumer.sh find-package PREFIX WORK    configure, build and run tests/consumer by find_package(convlive)
#   run-consumer.sh pkg-config PREFIX WORK      build and run main.cpp by a plain compile line and pkg-config
#   run-consumer.sh run WORK [--device]         run the program built in WORK again (--device: 77 without a GPU)
# Environment: CMAKE, CXX, CMAKE_GENERATOR, PKG_CONFIG (ctest passes the build's own).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CMAKE=${CMAKE:-cmake}
CXX=${CXX:-c++}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
say() { printf 'run-consumer: %s\n' "$*"; }
fail() { printf 'run-consumer: FAILED: %s\n' "$*" >&2; exit 1; }
run() { say "$*"; "$@"; }

libdir_of() {  # the installed library's folder (lib or lib/<multiarch>)
  local pc
  pc=$(find "$1" -name convlive.pc -path '*/pkgconfig/*' | head -n 1)
  [ -n "$pc" ] || fail "no convlive.pc under $1 (run the install step first)"
  dirname "$(dirname "$pc")"
}

case "${1:-}" in
  install)
    build=$2 prefix=$3
    rm -rf "$prefix"
    run "$CMAKE" --install "$build" --prefix "$prefix" --component Runtime
    run "$CMAKE" --install "$build" --prefix "$prefix" --component Development
    libdir=$(libdir_of "$prefix")
    so=$(find "$libdir" -maxdepth 1 -type f -name 'libconvlive.so.*')
    [ -n "$so" ] || fail "no libconvlive.so.* in $libdir"
    soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ -n "$soname" ] && [ -L "$libdir/$soname" ] && [ -L "$libdir/libconvlive.so" ] ||
      fail "$so: SONAME '$soname', or its link or libconvlive.so, is missing"
    for f in convliveConfig.cmake convliveConfigVersion.cmake convliveTargets.cmake; do
      [ -f "$libdir/cmake/convlive/$f" ] || fail "$libdir/cmake/convlive/$f is missing"
    done
    [ -f "$prefix/include/convlive/plan.hpp" ] && [ -f "$prefix/include/convlive/version.hpp" ] ||
      fail "the public headers are missing from $prefix/include/convlive"
    say "installed into $prefix ($(basename "$so"), SONAME $soname):"
    (cd "$prefix" && find . -type f -o -type l | sort)
    ;;
  headers)
    prefix=$2
    libdir=$(libdir_of "$prefix")
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    read -r -a cflags <<<"$("$PKG_CONFIG" --cflags convlive)"
    n=0
    for h in "$prefix"/include/convlive/*.hpp; do
      name=convlive/$(basename "$h")
      printf '#include <%s>\n#include <%s>\n' "$name" "$name" |
        "$CXX" -std=c++20 -fsyntax-only -Wall -Wextra -Werror "${cflags[@]}" -x c++ - ||
        fail "$name does not compile on its own against the installed tree (an include that is not installed?)"
      n=$((n + 1))
    done
    ((n > 0)) || fail "no headers in $prefix/include/convlive"
    say "$n installed headers each compile on their own (included twice) with only the installed tree"
    ;;
  find-package)
    prefix=$2 work=$3
    rm -rf "$work"
    run "$CMAKE" -S "$here" -B "$work" ${CMAKE_GENERATOR:+-G "$CMAKE_GENERATOR"} -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_CXX_COMPILER=$CXX" "-DCMAKE_PREFIX_PATH=$prefix" -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON
    run "$CMAKE" --build "$work"
    run "$work/consumer"
    ;;
  pkg-config)
    prefix=$2 work=$3
    rm -rf "$work"
    mkdir -p "$work"
    libdir=$(libdir_of "$prefix")
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    say "pkg-config --cflags --libs convlive: $("$PKG_CONFIG" --cflags --libs convlive)"
    # The prefix is not one the loader searches: the program carries it as its RPATH.
    # shellcheck disable=SC2046
    run "$CXX" -std=c++20 -O2 -Wall -Wextra -Werror "$here/main.cpp" -o "$work/consumer" \
      $("$PKG_CONFIG" --cflags --libs convlive) "-Wl,-rpath,$libdir"
    run "$work/consumer"
    ;;
  run)
    work=$2
    shift 2
    run "$work/consumer" "$@"
    ;;
  *)
    sed -n '2,8p' "$0"
    exit 2
    ;;
esac
