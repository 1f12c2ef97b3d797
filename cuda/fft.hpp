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

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "kernels/fft.hpp"

namespace convlive {

// The smallest n' >= n of the form 2^a 3^b with b <= 4. Timed on the H200 with cuFFT
// (app/bench/fft_sizes.py and the benchmark): sizes with factors 5 and
// 7 gave smaller planes but transforms up to 1.5x slower (4K + 2 x 64: 3969x2304 in 1.03 ms
// against 4096x2304 in 0.69), and many factors of 3 slower ones too (4K + 2 x 8: 3888x2187, 3^5
// and 3^7, 0.69 ms for fft against 0.62 at 4096x2304).
int fftGoodSize(int n);

// Transform sizes and plane counts for frames `image` describes.
struct FftGeometry {
  int padW = 0, padH = 0;  // fftGoodSize(width + 2r), fftGoodSize(height + 2r)
  int channels = 3;        // planes a frame: its filtered channels (not a copied 4th)
  int frames = 1;          // frames a group: the batch, or fewer where its planes pass kFftGroupBytes
  int groups = 1;          // groups the batch takes, transformed one after the other
  bool magnitude = false;  // two masks (gx, gy): a second set of planes and a second inverse
  std::size_t planeValues() const { return std::size_t(padW) * std::size_t(padH); }
  std::size_t spectrumBytes() const;  // one plane's spectrum
  std::size_t frameBytes() const;     // a frame's planes and spectra (both sets for a magnitude)
  std::size_t deviceBytes() const;    // one group's planes and the mask's spectra (cuFFT's work area aside)
};
// A batch's frames are transformed in groups whose planes (real and complex, both sets for a
// magnitude) take at most this much device memory, at least one frame a group: a batch of many
// large frames does not ask for all their planes at once.
constexpr std::size_t kFftGroupBytes = std::size_t(1) << 30;
FftGeometry fftGeometry(const ImageDesc& image, int radius, bool filterAlpha, Combine combine);
// One RGBA8 frame.
FftGeometry fftGeometry(int width, int height, int radius, bool filterAlpha, Combine combine);

// An estimate of the largest error of an output value from float transforms of the given size:
// 3 * eps * log2(padW * padH) * scale * sum|w| (twice the transforms for the round trip; sums of
// the signal's own size), scale being the largest value of the type: 255 for u8 and 65535 for u16,
// in levels; 1 for f16 and f32, as a fraction of the frame's largest |value|. Not a proof: a model
// with margin, checked by the tests' frames against the double-precision reference. The variant
// refuses integer frames whose estimate passes 0.45 of a level (below 0.5 a value rounds at most
// 1 LSB away: the tensor-core variants' budget); for float frames it stays below the contract's
// 1e-5 of sum|w| x max|x| for every plane cuFFT takes (log2 of the plane below 55).
double fftErrorEstimate(const Mask& mask, const FftGeometry& g, PixelType type = PixelType::U8);
constexpr double kFftErrorBudget = 0.45;

// Whether the frames `image` describes fit the variant's planes: "" when they do, else why not.
std::string fftSizeProblem(const ImageDesc& image, const FftGeometry& g);

// Whether cuFFT could be loaded ("" when it could; else why not, and what to do). Loads it on
// the first call (CONVLIVE_CUFFT names the library file to use; else libcufft.so.12, libcufft.so,
// then the CUDA toolkit's lib64 folders). Thread-safe.
const std::string& cufftMissing();

// The prepared state of one filter on one frame size: cuFFT's plans, the planes, the mask's
// spectra. Rebuilt when the mask, the combine rule, the alpha mode, the frames' size, type,
// channels or batch change; kept otherwise. One per Workspace (one stream at a time). Throws CudaError (CUDA) or
// std::runtime_error (cuFFT, with its result code) on failure.
class FftConvolver {
 public:
  FftConvolver();
  ~FftConvolver();
  FftConvolver(const FftConvolver&) = delete;
  FftConvolver& operator=(const FftConvolver&) = delete;

  // l.in -> l.out with `mask` (and its transpose for a gradient magnitude), on l.stream.
  void run(const kernels::FftLaunch& l, const Mask& mask);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace convlive
