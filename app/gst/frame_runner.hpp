// Runs a plan on frames in host memory (mapped GStreamer buffers), synchronously: RGBA8 (run) or
// NV12/I420 (runYuv).
// GPU variants: the frame is copied into a pinned buffer, uploaded on the runner's own CUDA stream,
// filtered, downloaded into a second pinned buffer, waited for, and copied into the output frame
// (so any row stride works on both sides). YUV frames travel as YUV (1.5 bytes a pixel each way, in
// one pinned buffer and one device frame, packed) and are converted to RGBA8 and back on the GPU
// around the variant (convlive/colour.hpp). Host variants run on the frames where they are, through
// a packed copy only when a stride is not a multiple of 4 bytes; YUV through packed RGBA8 frames,
// converted by the colour library's CPU reference.
//
// One per element, used by its streaming thread only. prepare() per caps or filter change (it
// allocates); run()/runYuv() per frame (they do not, once prepared). A GPU plan is made for device
// memory (the runner's device frames); a CPU plan for host memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "convlive/colour.hpp"
#include "convlive/image.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"

namespace convlive::gstelement {

class FrameRunner {
 public:
  // Makes what `plan` needs for its frames, RGBA8 or (`yuv` set) that YUV format: for a GPU plan
  // the stream, device frames and pinned buffers (kept when the size and format are unchanged).
  // Throws CudaError.
  void prepare(const Plan& plan, std::optional<YuvFormat> yuv = std::nullopt);
  // out = plan(in). in and out: host memory, the prepared size, any pitch. Returns once `out` is
  // written. Throws CudaError or std::invalid_argument.
  void run(Plan& plan, ConstImageView in, ImageView out);
  // The same for YUV frames of the prepared format: in -> RGBA8 (alpha 255) -> plan -> out, both
  // conversions with `colour`. Any plane pitches.
  void runYuv(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);

 private:
  struct Gpu {
    Stream stream;
    DeviceImage in, out;
    PinnedBuffer hostIn, hostOut;  // RGBA8: packed rows, width * 4 bytes
    DeviceYuvFrame yuv;            // YUV: the frame uploaded, then the frame to download (packed planes)
    PinnedBuffer hostYuv;          // YUV: the same layout, both ways (one stream orders the copies)
  };
  void checkSize(int width, int height) const;
  void runOnGpu(Plan& plan, ConstImageView in, ImageView out);
  void runOnHost(Plan& plan, ConstImageView in, ImageView out);
  void runYuvOnGpu(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);
  void runYuvOnHost(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);

  std::unique_ptr<Gpu> gpu_;
  std::vector<std::uint8_t> packedIn_, packedOut_;  // host variants: frames with strides they cannot take
  int width_ = 0, height_ = 0;
  std::optional<YuvFormat> yuv_;  // the prepared frames' format: RGBA8 when empty
};

// Copies the pixels of equal-sized host frames row by row (the strides may differ).
void copyPixels(ConstImageView from, ImageView to);
// Copies the planes of equal-sized host YUV frames of one format row by row (the pitches may differ).
void copyPlanes(const ConstYuvView& from, const YuvView& to);

}  // namespace convlive::gstelement
