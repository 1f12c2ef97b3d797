#!/usr/bin/env bash
# 2026-11-26 session 15, call 2: the prepare step (Variant::prepare, kept per workspace) against
# HEAD's per-run preparation, both with the benchmark's new host_us column (the median host time
# of one run() call); the gpu tests and the sanitizers on the MaskChanges cases that now reuse
# preparations; ncu of tensorstream after item 48 (4K r=4 and r=32) for what limits it now.
set -uo pipefail
source .devbundle/env.sh
B=/tmp/v/bin; mkdir -p $B /tmp/v/o
for f in prep-bench noprep-bench convlive_tests_gpu; do
  xz -dc build-ab20/$f.xz > $B/$f && chmod +x $B/$f || { echo "cannot unpack $f"; exit 1; }
done
L=$OUT/tests.log
nvidia-smi --query-gpu=name,driver_version --format=csv > $L 2>&1
echo "=== convlive_tests_gpu" >> $L
timeout 240 $B/convlive_tests_gpu --gtest_brief=1 >> $L 2>&1; echo "rc=$?" >> $L
echo "=== memcheck MaskChanges.*" >> $L
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/convlive_tests_gpu --gtest_filter='AllVariants/MaskChanges.*' --gtest_brief=1 >> $L 2>&1; echo "memcheck rc=$?" >> $L
grep -E "^===|PASSED|FAILED|SKIPPED|ERROR SUMMARY|rc=" $L
# Host time of a run() and the GPU time, alternating builds, two rounds.
for round in 1 2; do
  for b in noprep prep; do
    timeout 150 $B/$b-bench --variants stream,tensorstream,tensor2d,fused --radii 2,8,32 --custom-radii 8,32 \
      --sizes 3840x2160,1920x1080 --repeats 30 --out-dir /tmp/v/$b-$round > /tmp/v/$b-$round.log 2>&1 || { echo "$b-$round failed"; tail -3 /tmp/v/$b-$round.log; }
  done
done
python3 - <<'PY' > $OUT/host-us.txt
import json, collections
rows = collections.defaultdict(dict)
for b in ("noprep", "prep"):
    for r in (1, 2):
        try: doc = json.load(open(f"/tmp/v/{b}-{r}/convlive.json"))
        except Exception as e: print("missing", b, r, e); continue
        for x in doc["results"]:
            if x.get("error"): continue
            k = (x["variant"], x["mask"], x["radius"], x["width"], x["height"])
            d = rows[k].setdefault(b, {"ms": 9e9, "host": []})
            d["ms"] = min(d["ms"], x["median_ms"])   # best tile
            d["host"].append(x["host_us"])
print("variant mask r size | GPU ms best tile noprep prep | host us per run() (median over tiles and rounds) noprep prep")
for k in sorted(rows):
    a, b = rows[k].get("noprep"), rows[k].get("prep")
    if not a or not b: continue
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"{k[0]} {k[1]} r={k[2]} {k[3]}x{k[4]} | {a['ms']:.4f} {b['ms']:.4f} | {med(a['host']):.1f} {med(b['host']):.1f}")
PY
cat $OUT/host-us.txt
cp /tmp/v/prep-1/convlive.json $OUT/prep-convlive.json
# ncu: tensorstream at 4K r=4 and r=32 after item 48.
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
timeout 200 ncu --filter-mode per-launch-config --launch-count 1 $S --metrics $M -k regex:^tensorStreamKernel $B/prep-bench --variants tensorstream --radii 4,32 --sizes 3840x2160 --repeats 20 --warmup 1 --out-dir /tmp/v/o > $OUT/ncu-ts.txt 2>&1
echo "ncu rc=$?"
grep -E "tensorStreamKernel<|Duration|Throughput|Achieved Occupancy|Eligible|No Eligible|Issued Warp|Registers Per|Theoretical Occ|Block Limit|wavefronts|conflicts|sectors|requests|inst_executed|hmma|l1tex__throughput" $OUT/ncu-ts.txt | cut -c1-150 | head -80
