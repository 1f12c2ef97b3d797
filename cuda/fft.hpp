// The fft variant: convolution as a product of spectra (cuFFT), for large 2D masks, whose direct
// cost grows with (2r+1)^2 while a transform's does not grow with r at all.
//
// The frame is extended by the border mode by r on every side into float planes of a size cuFFT
// transforms fast (2^a 3^b, b <= 4), so the transform's wrap-around never reaches the
// pixels kept; each channel's spectrum is multiplied by the mask's (made once per mask and frame
// size: the prepare step), transformed back and packed. cuFFT is loaded when first needed, not
// linked: libcufft is about 280 MB, and a build or a user without it loses this one variant only.
//
// Internal to convlive_cuda (the variant table and its tests).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "convlive/mask.hpp"
#include "kernels/launch.hpp"

namespace convlive {

// The smallest n' >= n of the form 2^a 3^b with b <= 4. Timed on the H200 with cuFFT
// (app/bench/fft_sizes.py and the benchmark): sizes with factors 5 and
// 7 gave smaller planes but transforms up to 1.5x slower (4K + 2 x 64: 3969x2304 in 1.03 ms
// against 4096x2304 in 0.69), and many factors of 3 slower ones too (4K + 2 x 8: 3888x2187, 3^5
// and 3^7, 0.69 ms for fft against 0.62 at 4096x2304).
int fftGoodSize(int n);

// Transform sizes and plane counts for a width x height frame.
struct FftGeometry {
  int padW = 0, padH = 0;           // fftGoodSize(width + 2r), fftGoodSize(height + 2r)
  int channels = 3;                 // 4 when alpha is filtered
  bool magnitude = false;           // two masks (gx, gy): a second set of planes and a second inverse
  std::size_t deviceBytes() const;  // the planes and the mask's spectra (cuFFT's work area aside)
};
FftGeometry fftGeometry(int width, int height, int radius, bool filterAlpha, Combine combine);

// An estimate of the largest error of an output value, in levels (before rounding), from float
// transforms of the given size: 3 * eps * log2(padW * padH) * 255 * sum|w| (twice the transforms
// for the round trip; sums of the signal's own size). Not a proof: a model with margin, checked
// by the tests' frames against the double-precision reference. The variant refuses a mask whose
// estimate passes 0.45 of a level (below 0.5 a value rounds at most 1 LSB away: the tensor-core
// variants' budget).
double fftErrorEstimate(const Mask& mask, const FftGeometry& g);
constexpr double kFftErrorBudget = 0.45;

// Whether cuFFT could be loaded ("" when it could; else why not, and what to do). Loads it on
// the first call (CONVLIVE_CUFFT names the library file to use; else libcufft.so.12, libcufft.so,
// then the CUDA toolkit's lib64 folders). Thread-safe.
const std::string& cufftMissing();

// The prepared state of one filter on one frame size: cuFFT's plan, the planes, the mask's
// spectra. Rebuilt when the mask, the combine rule, the alpha mode or the frame size change; kept
// otherwise. One per Workspace (one stream at a time). Throws CudaError (CUDA) or
// std::runtime_error (cuFFT, with its result code) on failure.
class FftConvolver {
 public:
  FftConvolver();
  ~FftConvolver();
  FftConvolver(const FftConvolver&) = delete;
  FftConvolver& operator=(const FftConvolver&) = delete;

  // l.in -> l.out with `mask` (and its transpose for a gradient magnitude), on l.stream.
  void run(const kernels::Launch& l, const Mask& mask);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace convlive
