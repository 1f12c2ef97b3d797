// Writes device frames into display textures in the order they are presented.
//
// Each pipeline slot has its own CUDA stream. Were each frame's copy into the interop texture
// enqueued on its slot's stream, two slots' copies would not be ordered against each other: a
// later frame could land in the texture before an earlier one (and the earlier one would then be
// shown as the newest). So every copy goes through this one stream instead: it waits for the
// slot's work (an event recorded on the slot's stream), copies, and the slot's stream in turn
// waits for the copy, so the pipeline does not reuse the slot's memory before the copy has read
// it. Copies on one stream run in the order they were enqueued: frames reach the texture in order.
//
// Render thread only (FrameTexture's contract: the GL context is current there).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <span>

#include "frame_texture.hpp"

namespace convlive {

class PresentStream {
 public:
  struct Write {
    FrameTexture* texture;
    TextureFrame frame;  // device memory, written by work enqueued on the frame's stream
  };
  PresentStream();   // the stream and its events are made on the first present
  ~PresentStream();  // waits for the copies enqueued (the textures may go after it)
  PresentStream(const PresentStream&) = delete;
  PresentStream& operator=(const PresentStream&) = delete;

  // Enqueues the writes after the work already on `frameStream` and after every earlier present,
  // and makes `frameStream` wait for them. Returns without waiting for the GPU (except where the
  // texture is reallocated, or interop is unavailable and the frame goes through host memory).
  // Throws CudaError / GlError.
  void present(std::span<const Write> writes, cudaStream_t frameStream);
  // Waits for every copy enqueued.
  void synchronize();
  // The GPU time of the last present's copies into its textures (each copy alone: not the map
  // before it, which waits for GL to release the texture), once they have run: read without
  // waiting for them (a present whose copies had not run by the next present is not timed).
  // nullopt: none new.
  std::optional<double> takeCopyMs();

 private:
  struct Cuda;
  std::unique_ptr<Cuda> cuda_;
};

}  // namespace convlive
