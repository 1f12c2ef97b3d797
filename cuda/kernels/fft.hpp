// The fft variant's own kernels around cuFFT's transforms, on frames of any pixel type (u8, u16,
// f16, f32), 1, 3 or 4 channels, a batch at a time. Host-side entry points, light like launch.hpp:
// cuda/fft.cpp runs them in order, between its transforms; the kernels are in fft.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "convlive/border.hpp"
#include "convlive/image.hpp"
#include "convlive/work_model.hpp"
#include "launch.hpp"

namespace convlive::kernels {

struct FftLaunch {
  const void* in;
  void* out;
  ImageDesc image;                       // type, channels, alpha, size, pitch, batch (frames at its stride)
  std::size_t outPitch, outFrameStride;  // the output's strides where they differ (0: the image's)
  Border border;
  Combine combine;
  bool filterAlpha;  // 4 channels with alpha: filter it (else copied, as padding always is)
  cudaStream_t stream;
};

// The buffers of one group of frames (cuda/fft.cpp owns them and runs cuFFT between the launches):
// `frames` x `channels` real planes of padW x padH floats, one after the other (frame-major); their
// spectra, padH x (padW / 2 + 1) complex values each; the mask's spectrum, and for a gradient
// magnitude the transposed mask's right after it, with the second set of planes (real2, complex2)
// for gy. `weights`: the mask's (2r + 1)^2 weights, row-major, for frames the transforms cannot take;
// `direct`: one flag a frame of the group, set to `stamp` (the group's run, never 0) by the pad
// kernel where a frame holds such a value (Inf, NaN, or one so large that the transforms' sums could
// overflow), so that the pack kernel filters that frame directly from its input instead, as the
// reference does; a flag of an earlier run is not this one's, so the flags need no clearing between
// runs (a memset launch each run cost more than the check).
struct FftPlanes {
  float* real;
  float* real2;
  float2* complex;
  float2* complex2;
  const float2* spectrum;
  const float* weights;
  unsigned* direct;
  unsigned stamp;
  int padW, padH, radius, channels, frames;
  bool magnitude;
  CL_HD std::size_t planeValues() const { return std::size_t(padW) * std::size_t(padH); }
  CL_HD std::size_t spectrumValues() const { return std::size_t(padW / 2 + 1) * std::size_t(padH); }
  CL_HD int planes() const { return channels * frames; }
};

// Past this magnitude a float input value sends its frame to the direct path: the transforms sum up
// to padW x padH values of the frame's largest, and float holds 3.4e38.
constexpr float kFftLargestTransformed = 1e30f;

// Frames first .. first + f.frames - 1 of l, extended by r on every side (the border mode), into the
// real planes, zeros past them; direct flags set to f.stamp.
void fftPad(const FftLaunch& l, const FftPlanes& f, int first);
// complex *= spectrum, per plane (magnitude: complex2 = complex * the second spectrum, first).
void fftMultiply(const FftLaunch& l, const FftPlanes& f);
// The real planes' interior (r in from the top-left) combined into the output frames first ..; the
// frames flagged direct filtered from their input instead; a copied 4th channel copied.
void fftPack(const FftLaunch& l, const FftPlanes& f, int first);

// Its passes that cover no frame area (cuFFT's transforms, the product of spectra) have zero-sized
// outputTile and inputTile. f: one group's planes (frames: the group's size); groups: how many
// groups the batch takes.
LaunchDescription describeFft(const FftLaunch& l, const FftPlanes& f, int groups);
WorkModel modelFft(const FftLaunch& l, const FftPlanes& f);

}  // namespace convlive::kernels
