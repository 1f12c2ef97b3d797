// The row kernels of the cpu-simd variant: SIMD through Highway, the widest vector this CPU has
// picked at run time (SSE4, AVX2, AVX-512). Light on purpose: Highway stays in cpu_simd_kernels.cpp.
// Every function is thread-safe (no state) and works on one row of interleaved RGBA values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convlive/border.hpp"

namespace convlive::simd {

// How far past `n` accumulate() may read its rows and write `acc` (elements): whoever owns those
// buffers keeps this much slack after each row. Covers four of the widest vectors of floats.
constexpr std::size_t kSlack = 64;
// The most taps one call takes (a row of the largest mask).
constexpr std::size_t kMaxTaps = 129;

// acc[i] = sum over k < taps of weights[k] * rows[k][i], for i in [0, n), summed in order of k with
// one rounding per tap (fused multiply-add). taps == 0 writes zeros. Reads and writes up to n + kSlack.
void accumulate(const float* const* rows, const float* weights, std::size_t taps, float* acc, std::size_t n);
void accumulate(const double* const* rows, const double* weights, std::size_t taps, double* acc, std::size_t n);

// Four rows of sums at once: acc[j][i] = sum over t < taps of weights[t] * rows[j + t][i], j < 4,
// i in [0, n), each summed in order of t as accumulate() does. rows: taps + 3 pointers, none null
// (a zero row where the border reads zero). Reads and writes up to n + kSlack.
void accumulateFour(const float* const* rows, const float* weights, std::size_t taps, float* const* acc, std::size_t n);
void accumulateFour(const double* const* rows, const double* weights, std::size_t taps, double* const* acc,
                    std::size_t n);

// The same from 8-bit rows (taps + 3 of them): reads exactly n values of each row and writes
// exactly n sums, so that rows may be the frame's own.
void accumulateFour(const std::uint8_t* const* rows, const float* weights, std::size_t taps, float* const* acc,
                    std::size_t n);

// The row pass of one padded row: acc[i] = sum over t < taps of weights[t] * centre[i + 4 * (first + t)],
// i in [0, n), in order of t; with add, acc[i] += that sum (the sum made first, then added: one
// rounding more, the k-term sum of convlive/low_rank.hpp). With AVX-512, centre on a 64-byte
// boundary and a centred odd mask (first = -(taps / 2), taps <= 17), from aligned loads and lane
// rotations. Reads centre from 4 * first - 16 to n + 4 * (first + taps) + 2 * kSlack; reads (add)
// and writes acc up to n + kSlack.
void rowPass(const float* centre, int first, const float* weights, std::size_t taps, float* acc, std::size_t n,
             bool add = false);

// acc[i] += in[i], i in [0, n). Reads and writes up to n + kSlack.
void add(const float* in, float* acc, std::size_t n);
void add(const double* in, double* acc, std::size_t n);

// out[i] = in[i] (exact), i in [0, n).
void widen(const std::uint8_t* in, float* out, std::size_t n);
void widen(const std::uint8_t* in, double* out, std::size_t n);
void widen(const std::uint16_t* in, float* out, std::size_t n);
// out[i] = float(in[i]), i in [0, n): what the reference does with its double sums.
void narrow(const double* in, float* out, std::size_t n);

// out[i] = saturateToByte(combineValue(a[i], b[i], combine)) for i in [0, n), n a multiple of 4
// (RGBA); with filterAlpha false every fourth value (alpha) is copied from `in` instead. b is read
// only for Magnitude. Reads and writes exactly n bytes of in and out.
void finish(const float* a, const float* b, Combine combine, bool filterAlpha, const std::uint8_t* in,
            std::uint8_t* out, std::size_t n);

// out[i] = |a[i]| (abs) or a[i] rounded to nearest (ties to even) and saturated to 0..65535, i in
// [0, n). Reads and writes exactly n values.
void finishU16(const float* a, bool abs, std::uint16_t* out, std::size_t n);

// The instruction set chosen on this CPU ("AVX3", "AVX2", ...), for reports.
const char* targetName();

}  // namespace convlive::simd
