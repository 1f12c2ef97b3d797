#!/usr/bin/env bash
# Session 21, round 2: the gpu-labelled test programs beside convlive_tests_gpu and the inspector's
# (which round 0, verify-round.sh, ran on the H200): peaks, colour, pipeline, viewer (EGL) and the
# GStreamer element, on 531cd8b's build (stripped, xz-compressed in BINS, default build-ab19, with
# convlive and the element's plugin), and BINS/devbundle.tar.xz: the .devbundle that
# ../shared/device/bundle.sh made for these programs (xz-compressed to fit the call's 64 MiB).
# From the project root there; writes $OUT/tests-other.log.
set -uo pipefail
OUT=${OUT:-/tmp/out} BINS=${BINS:-build-ab19}
rm -rf .devbundle && xz -dc $BINS/devbundle.tar.xz | tar -xf - || { echo "cannot unpack the bundle"; exit 1; }
source .devbundle/env.sh
B=/tmp/v/bin G=/tmp/v/gst; mkdir -p $B $G
for f in $BINS/*.xz; do
  [[ $f == *.tar.xz ]] && continue
  n=$(basename $f .xz)
  case $n in *.so) d=$G ;; *) d=$B ;; esac
  xz -dc $f > $d/$n && chmod +x $d/$n || { echo "cannot unpack $f"; exit 1; }
done
export CONVLIVE_EXE=$B/convlive GST_PLUGIN_PATH=$G:$GST_PLUGIN_PATH GST_REGISTRY=/tmp/v/registry.bin
L=$OUT/tests-other.log
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "root: $PWD"; } > $L
failed=0
for t in convlive_tests_peaks_gpu convlive_tests_colour_gpu convlive_tests_pipeline_gpu convlive_tests_viewer_gpu \
         convlive_tests_gst_element_gpu; do
  echo "=== $t" >> $L
  (cd /tmp/v && timeout 280 $B/$t --gtest_brief=1) >> $L 2>&1
  rc=$?; echo "rc=$rc" >> $L; ((rc)) && failed=1
done
grep -E "^===|^\[  (PASSED|FAILED|SKIPPED) |^rc=|Skipped|Failure" $L | head -60
exit $failed
