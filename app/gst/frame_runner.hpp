// Runs a variant on RGBA8 frames in host memory (mapped GStreamer buffers), synchronously.
// GPU variants: the frame is copied into a pinned buffer, uploaded on the runner's own CUDA stream,
// filtered, downloaded into a second pinned buffer, waited for, and copied into the output frame
// (so any row stride works on both sides). Host variants run on the frames where they are, through
// a packed copy only when a stride is not a multiple of 4 bytes.
//
// One per element, used by its streaming thread only. prepare() per caps or filter change (it
// allocates); run() per frame (it does not, once prepared).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "convlive/image.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"

namespace convlive::gstelement {

class FrameRunner {
 public:
  // Makes what `v` needs for width x height frames: for a GPU variant the stream, device frames and
  // pinned buffers (kept when the size is unchanged), and a fresh workspace. Throws CudaError.
  void prepare(const Variant& v, int width, int height);
  // out = v(p, in). in and out: host memory, the prepared size, any pitch. Returns once `out` is
  // written. Throws CudaError, ProblemError (the variant refused) or std::invalid_argument.
  void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out);

 private:
  struct Gpu {
    Stream stream;
    DeviceImage in, out;
    PinnedBuffer hostIn, hostOut;  // packed rows: width * 4 bytes
  };
  void runOnGpu(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out);
  void runOnHost(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out);

  std::unique_ptr<Gpu> gpu_;
  std::vector<std::uint8_t> packedIn_, packedOut_;  // host variants: frames with strides they cannot take
  Workspace ws_;
  int width_ = 0, height_ = 0;
};

// Copies the pixels of equal-sized host frames row by row (the strides may differ).
void copyPixels(ConstImageView from, ImageView to);

}  // namespace convlive::gstelement
