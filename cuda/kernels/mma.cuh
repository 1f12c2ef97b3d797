// Tensor-core helpers shared by the tensor kernels: ldmatrix, mma.sync m16n8k16 (fp16 in, fp32
// sums), and bytes to exact fp16. Fragment layouts are PTX's (ISA, "Matrix Fragments for
// mma.m16n8k16"): with g = lane / 4 and t = lane % 4, A's registers hold (row g, columns 2t, 2t+1),
// (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..); B's (rows 2t, 2t+1 of column g), (rows 2t+8, 2t+9); C's
// (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
#pragma once

#include <cuda_fp16.h>

namespace convlive::kernels {

__device__ __forceinline__ unsigned smemAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ void ldmatrixX4(unsigned (&a)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrixX4Trans(unsigned (&a)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}
__device__ __forceinline__ void mma16816(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// The same with C = 0: a product that starts a sum (no zeroed registers needed).
__device__ __forceinline__ void mma16816Zero(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.f));
}
#endif

// Channel ch of two packed RGBA8 pixels as two exact halves (p0's in the low half): 1024 + byte has
// the byte in the mantissa (0x6400 | byte), so one PRMT, one LOP3 and one HSUB2.
__device__ __forceinline__ unsigned bytesToHalf2(unsigned p0, unsigned p1, int ch) {
  const unsigned t = __byte_perm(p0, p1, static_cast<unsigned>(ch | (4 + ch) << 8));
  const unsigned biased = (t & 0x00FF00FFu) | 0x64006400u;
  const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&biased), __float2half2_rn(1024.f));
  return *reinterpret_cast<const unsigned*>(&v);
}

__device__ __forceinline__ unsigned pairOf(const __half* p) {
  const __half2 v = __halves2half2(p[0], p[1]);
  return *reinterpret_cast<const unsigned*>(&v);
}
__device__ __forceinline__ unsigned halfPair(float lo, float hi) {
  const __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&v);
}

}  // namespace convlive::kernels
