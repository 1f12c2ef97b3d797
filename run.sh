#!/usr/bin/env bash
# convlive: set up, build and run.
#   ./run.sh          install what is missing, build, run the default demo
#   ./run.sh test     the same set-up, then every test (gpu tests skip without a CUDA device)
#   ./run.sh build    set-up and build only
#   ./run.sh sanitize the host code built with AddressSanitizer and UBSan (build-sanitize), then the
#                     cpu-labelled tests on it (no GPU kernels are needed: they build for sm_75 only)
# Environment: BUILD_DIR (default build), CUDA_ARCHS (default "75-real;86-real;89-real;90"), JOBS,
# WERROR=ON (warnings are errors: what CI builds with).
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
CUDA_ARCHS=${CUDA_ARCHS:-"75-real;86-real;89-real;90"}
PACKAGES=(build-essential cmake ninja-build pkg-config libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev libstb-dev
          libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
          gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
          gstreamer1.0-tools gstreamer1.0-x
          libhwy-dev libtbb-dev libpng-dev libturbojpeg0-dev libtiff-dev pybind11-dev python3-dev python3-numpy
          libglfw3-dev libglew-dev libimgui-dev libegl-dev libopengl-dev libegl-mesa0 libgl1-mesa-dri xvfb xauth clang-format)
# H.264 in (gstreamer1.0-libav, h264parse from -bad; nvh264dec from -bad where an NVIDIA driver is present)
# and out (x264enc from -ugly) come with the set-up, so phone videos play and export with no extra step.
# gstreamer1.0-tools: gst-launch-1.0 and gst-inspect-1.0, gstreamer1.0-x: a window for autovideosink (without it
# autovideosink picks a sink that crashes on a minbase system); both for the convlivefilter element (README: GStreamer).
# libhwy/libtbb: the cpu-simd variant; libpng/libturbojpeg/libtiff: 16-bit PNG, JPEG and 16-bit and float
# TIFF pictures; pybind11: the
# Python module.

say() { printf 'run.sh: %s\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { say "missing packages (${missing[*]}) and not root, no sudo: install them, then retry"; exit 1; }
    sudo=(sudo)
  fi
  say "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

find_nvcc() {
  command -v nvcc >/dev/null && return 0
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    [ -x "$d/nvcc" ] && { export PATH="$d:$PATH"; return 0; }
  done
  say "nvcc (the CUDA toolkit, 12.4 or newer) is not installed: get it from https://developer.nvidia.com/cuda-downloads, then retry"
  exit 1
}

build() {
  install_packages
  find_nvcc
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHS" \
    "-DCONVLIVE_WERROR=${WERROR:-OFF}" >/dev/null
  cmake --build "$BUILD_DIR" ${JOBS:+-j "$JOBS"}
}

# The host code (C++, the .cu files' host side stays plain) with AddressSanitizer and UBSan.
sanitize() {
  install_packages
  find_nvcc
  local dir=${SANITIZE_DIR:-build-sanitize} flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=75-real \
    "-DCMAKE_CXX_FLAGS=$flags -fno-omit-frame-pointer" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
    "-DCMAKE_SHARED_LINKER_FLAGS=$flags" "-DCMAKE_MODULE_LINKER_FLAGS=$flags" >/dev/null
  cmake --build "$dir" ${JOBS:+-j "$JOBS"}
  cd "$dir"
  # Every process loads the sanitizers' runtime first (python3 and gst-launch-1.0 load instrumented
  # modules), with libstdc++ beside it (ASan intercepts its throw); CUDA maps memory where ASan keeps
  # its shadow gap; leaks are not checked (the system libraries' own, GStreamer's and fontconfig's,
  # would drown ours).
  local asan stdcpp
  asan=$(${CXX:-c++} -print-file-name=libasan.so)
  stdcpp=$(${CXX:-c++} -print-file-name=libstdc++.so)
  LD_PRELOAD="$asan $stdcpp" ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=0 \
    UBSAN_OPTIONS=print_stacktrace=1 GST_REGISTRY_FORK=no \
    xvfb-run -a -s "-screen 0 1920x1080x24" ctest -L cpu -E "^Consumer\." --output-on-failure -j "${JOBS:-2}"
}

case "${1:-run}" in
  run)
    build
    out=${DEMO_DIR:-demo}
    mkdir -p "$out"
    "$BUILD_DIR/convlive" list variants
    echo
    "$BUILD_DIR/convlive" demo "$out"
    echo
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      say "opening the viewer on the default source (moving test pattern, 1280x720): h shows the keys, q quits"
      "$BUILD_DIR/convlive" view --mask gaussian --radius 4 --report "$out/report.json"
    else
      say "no display (DISPLAY is not set), so the viewer runs offscreen (EGL) for 5 s instead of in a window"
      "$BUILD_DIR/convlive" view --offscreen --seconds 5 --mask gaussian --radius 4 \
        --screenshot "$out/viewer.png" --report "$out/report.json"
      say "the viewer's picture is $out/viewer.png and its timing report $out/report.json"
    fi
    say "pictures and the timing report are in $out/"
    ;;
  test)
    build
    cd "$BUILD_DIR"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
      ctest --output-on-failure -j "${JOBS:-2}"
    else
      # The window tests need a display: a virtual one (Xvfb, Mesa) when there is none.
      say "no display: running the tests under xvfb-run"
      xvfb-run -a -s "-screen 0 1920x1080x24" ctest --output-on-failure -j "${JOBS:-2}"
    fi
    ;;
  build) build ;;
  sanitize) sanitize ;;
  *) say "unknown command '$1': use ./run.sh, ./run.sh test, ./run.sh build or ./run.sh sanitize"; exit 2 ;;
esac
