#!/usr/bin/env bash
# Session 21, round 4: the Python module's tests (tests/test_python.py) with CuPy and PyTorch on the
# GPU machine, the module built here for its Python 3.12 (pyenv's headers, Debian's pybind11, HEAD's
# libconvlive_cuda.a; stripped and xz-compressed in BINS, default build-ab21). Writes
# $OUT/python-gpu.log.
set -uo pipefail
OUT=${OUT:-/tmp/out} BINS=${BINS:-build-ab21}
source .devbundle/env.sh
mkdir -p /tmp/py
xz -dc $BINS/convlive.cpython-312-x86_64-linux-gnu.so.xz > /tmp/py/convlive.cpython-312-x86_64-linux-gnu.so || exit 1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 --version; } > $OUT/python-gpu.log
PYTHONPATH=/tmp/py timeout 400 python3 tests/test_python.py -v >> $OUT/python-gpu.log 2>&1
rc=$?; echo "rc=$rc" >> $OUT/python-gpu.log
head -2 $OUT/python-gpu.log; grep -E "^(Ran|OK|FAILED)|skipped|Error" $OUT/python-gpu.log | head -20
exit $rc
