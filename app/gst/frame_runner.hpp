// Runs a plan on frames in host memory (mapped GStreamer buffers), synchronously: one-plane frames
// of the plan's own description (run: RGBA8, RGB, grey, 16-bit; frame_formats.hpp) or NV12/I420
// (runYuv).
// GPU variants: the frame is copied into a pinned buffer, uploaded on the runner's own CUDA stream,
// filtered, downloaded into a second pinned buffer, waited for, and copied into the output frame
// (so any row stride works on both sides). YUV frames travel as YUV (1.5 bytes a pixel each way, in
// one pinned buffer and one device frame, packed) and are converted to RGBA8 and back on the GPU
// around the variant (convlive/colour.hpp). Host variants run on the frames where they are: RGBA8
// through a packed copy only when a stride is not a multiple of 4 bytes; other frames through a
// copy at the plan's pitch (the caps' stride) on the side whose stride differs from it (a buffer
// with a video meta of its own, a downstream pool that pads its rows), as Plan::run takes one pitch
// for both; YUV through packed RGBA8 frames, converted by the colour library's CPU reference.
//
// One per element, used by its streaming thread only. prepare() per caps or filter change (it
// allocates); run()/runYuv() per frame (they do not, once prepared). A GPU plan is made for device
// memory (the runner's device frames); a CPU plan for host memory. Everything on the GPU is made,
// run and freed with the plan's device current (PlanOptions::device; -1: the thread's current one).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "convlive/colour.hpp"
#include "convlive/image.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "frame_formats.hpp"

namespace convlive::gstelement {

class FrameRunner {
 public:
  FrameRunner() = default;
  ~FrameRunner() { reset(); }
  FrameRunner(const FrameRunner&) = delete;
  FrameRunner& operator=(const FrameRunner&) = delete;
  // Frees the GPU buffers and stream (on the device they were made on) and forgets the frames.
  void reset();
  // Makes what `plan` needs for its frames, those of plan.image() or (`yuv` set) that YUV format:
  // for a GPU plan the stream, device frames and pinned buffers (kept when the frames are
  // unchanged). Throws CudaError.
  void prepare(const Plan& plan, std::optional<YuvFormat> yuv = std::nullopt);
  // out = plan(in). in and out: host memory, the prepared frames, any row stride. Returns once
  // `out` is written. Throws CudaError or std::invalid_argument.
  void run(Plan& plan, const FrameRows& in, const FrameRows& out);
  // The same for YUV frames of the prepared format: in -> RGBA8 (alpha 255) -> plan -> out, both
  // conversions with `colour`. Any plane pitches.
  void runYuv(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);

 private:
  struct Gpu {
    Stream stream;
    DeviceImage in, out;             // RGBA8 and YUV
    DeviceBuffer frameIn, frameOut;  // other frames: image_.span() bytes, rows at image_'s pitch
    PinnedBuffer hostIn, hostOut;    // RGBA8: packed rows, width * 4 bytes; other frames: as frameIn/Out
    DeviceYuvFrame yuv;              // YUV: the frame uploaded, then the frame to download (packed planes)
    PinnedBuffer hostYuv;            // YUV: the same layout, both ways (one stream orders the copies)
  };
  void checkSize(int width, int height) const;
  void runOnGpu(Plan& plan, ConstImageView in, ImageView out);
  void runOnHost(Plan& plan, ConstImageView in, ImageView out);
  void runFrameOnGpu(Plan& plan, const FrameRows& in, const FrameRows& out);
  void runFrameOnHost(Plan& plan, const FrameRows& in, const FrameRows& out);
  void runYuvOnGpu(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);
  void runYuvOnHost(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out);

  std::unique_ptr<Gpu> gpu_;
  int device_ = -1;  // the device gpu_'s resources live on (the plan's PlanOptions::device)
  std::vector<std::uint8_t> packedIn_, packedOut_;  // host variants: frames in strides they cannot take
  ImageDesc image_;                                 // the prepared frames (YUV: RGBA8 of their size)
  std::optional<YuvFormat> yuv_;                    // the prepared frames' format when YUV
};

// Copies `rows` rows of `rowBytes` bytes between host buffers whose rows are the given pitches apart.
void copyRows(const std::uint8_t* from, std::size_t fromPitch, std::uint8_t* to, std::size_t toPitch,
              std::size_t rowBytes, int rows);
// Copies the pixels of equal-sized host RGBA8 frames row by row (the strides may differ).
void copyPixels(ConstImageView from, ImageView to);
// Copies the planes of equal-sized host YUV frames of one format row by row (the pitches may differ).
void copyPlanes(const ConstYuvView& from, const YuvView& to);

}  // namespace convlive::gstelement
