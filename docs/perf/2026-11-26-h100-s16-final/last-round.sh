#!/usr/bin/env bash
# 2026-11-26 session 16, the last commit (dependent launches set their attribute only from compute
# capability 9.0): every gpu test.
set -uo pipefail
source .devbundle/env.sh
mkdir -p /tmp/ab && xz -dc build-ab35/convlive_tests_gpu.xz > /tmp/ab/t && chmod +x /tmp/ab/t || exit 1
L=$OUT/tests-last.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L
timeout 200 /tmp/ab/t --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
grep -E "PASSED|FAILED|SKIPPED|rc=" $L
