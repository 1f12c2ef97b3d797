// Per-warp timing of tensorstream (%globaltimer and %smid at each warp's start and end), with the
// Clamp and Zero borders, at 4K r=1 (64x64) and r=32 (64x256). A diagnostic, not part of the
// build: it includes cuda/kernels/tensor_stream.cu with the two hooks that tail-segments.diff adds
// (CONVLIVE_TS_PROBE_BEGIN after the segment's rows are known, CONVLIVE_TS_PROBE_END before the
// kernel returns); the session's earlier versions also launched item 31's segment schedule.
//   nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Icuda probe_ts.cu -o probe_ts \
//     -Xlinker --start-group build/libconvlive_cuda.a -Xlinker --end-group -lcudart -ltbb -lhwy -ldl
// writes probe-r<R>-<border>.csv (warp, block, sm, t0, t1 in ns); probe_summary.py sums them up.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
__device__ unsigned long long tsProbe[1 << 16][3];
#define CONVLIVE_TS_PROBE_BEGIN \
  unsigned long long probeT0;   \
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(probeT0));
#define CONVLIVE_TS_PROBE_END                                                                                   \
  {                                                                                                             \
    unsigned long long t1;                                                                                      \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));                                                      \
    unsigned smid;                                                                                              \
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));                                                           \
    const unsigned blk = blockIdx.y * gridDim.x + blockIdx.x, w = blk * (blockDim.x >> 5) + (threadIdx.x >> 5); \
    if ((threadIdx.x & 31) == 0 && w < (1u << 16)) {                                                            \
      tsProbe[w][0] = probeT0;                                                                                  \
      tsProbe[w][1] = t1;                                                                                       \
      tsProbe[w][2] = (unsigned long long)smid << 32 | blk;                                                     \
    }                                                                                                           \
  }
#include "kernels/tensor_stream.cu"

using namespace convlive;
using namespace convlive::kernels;

int main() {
  const int W = 3840, H = 2160;
  uchar4 *in, *out;
  const size_t pitch = W * 4;
  CL_CUDA(cudaMalloc(&in, pitch * H));
  CL_CUDA(cudaMalloc(&out, pitch * H));
  std::vector<unsigned> host(size_t(W) * H);
  for (auto& v : host) v = rand() * 2654435761u;
  CL_CUDA(cudaMemcpy(in, host.data(), pitch * H, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int r : {1, 32})
    for (Border border : {Border::Clamp, Border::Zero}) {
      MaskSep m{};
      m.radius = r;
      double sum = 0;
      for (int i = -r; i <= r; ++i) sum += std::exp(-0.5 * i * i / (r / 2.0 * r / 2.0 + 0.25));
      for (int i = -r; i <= r; ++i)
        m.row[i + r] = m.col[i + r] = float(std::exp(-0.5 * i * i / (r / 2.0 * r / 2.0 + 0.25)) / sum);
      Launch l{in, pitch, out, pitch, W, H, border, Combine::Identity, false, 64, r == 1 ? 64 : 256, 0};
      auto run = [&](auto kernel) {
        const size_t shared = sharedBytes<decltype(kernel)::B0>(4);
        auto k = tensorStreamKernel<decltype(kernel)::B0, 3, kFree, false>;
        allowSharedBytes(k, shared);
        std::vector<float> ms;
        const int rowsOfBlocks = ceilDiv(H, l.tileH);
        for (int i = 0; i < 60; ++i) {
          cudaEventRecord(e0);
          k<<<dim3(ceilDiv(W, 64), rowsOfBlocks), 128, shared>>>(l, m, l.tileH);
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          float t;
          cudaEventElapsedTime(&t, e0, e1);
          if (i >= 10) ms.push_back(t);
        }
        CL_CUDA(cudaGetLastError());
        std::sort(ms.begin(), ms.end());
        std::vector<unsigned long long> probe(size_t(3) << 16);
        CL_CUDA(cudaMemcpyFromSymbol(probe.data(), tsProbe, probe.size() * 8));
        const int warps = ceilDiv(W, 64) * rowsOfBlocks * 4;
        char name[64];
        const char* bn = border == Border::Zero ? "zero" : "clamp";
        snprintf(name, sizeof name, "probe-r%d-%s.csv", r, bn);
        FILE* f = fopen(name, "w");
        fprintf(f, "# r=%d tile 64x%d border %s; median %.4f ms\n", r, l.tileH, bn, ms[ms.size() / 2]);
        fprintf(f, "warp,block,sm,t0,t1\n");
        for (int w = 0; w < warps && w < (1 << 16); ++w)
          fprintf(f, "%d,%llu,%llu,%llu,%llu\n", w, probe[3 * w + 2] & 0xffffffffu, probe[3 * w + 2] >> 32,
                  probe[3 * w], probe[3 * w + 1]);
        fclose(f);
        printf("r=%d %s: median %.4f ms, %d warps\n", r, bn, ms[ms.size() / 2], warps);
      };
      if (r == 1)
        run(TensorStreamInstance<1, 3, kFree, false>{});
      else
        run(TensorStreamInstance<4, 3, kFree, false>{});
    }
}
