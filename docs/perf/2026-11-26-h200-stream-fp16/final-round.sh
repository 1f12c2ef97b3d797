#!/usr/bin/env bash
# 2026-11-26 session 13, final bench: stream with fp16 sums (b7d61fd) beside tensorstream, fused and
# tensor2d, with NVIDIA NPP, CuPy and PyTorch in the same call (app/bench/gpu-round.sh).
set -uo pipefail
source .devbundle/env.sh
B=/tmp/ab/bin; mkdir -p $B /tmp/fin
xz -dc build-ab7/new-convlive-bench.xz > $B/convlive-bench && chmod +x $B/convlive-bench
nvidia-smi > /tmp/fin/nvidia-smi.log
OUT=/tmp/fin BUILD=$B BENCH_ARGS="--variants stream,tensorstream,fused,tensor2d --radii 1,2,3,4,8,16,24,32 --custom-radii 8,16,32 --repeats 50" \
  timeout 560 app/bench/gpu-round.sh bench npp peers
echo "round rc=$?"
cp /tmp/fin/summary.md $OUT/ 2>/dev/null
tar -C /tmp/fin -cJf $OUT/final.tar.xz .
cat /tmp/fin/summary.md | head -60
