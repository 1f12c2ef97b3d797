#include "present_stream.hpp"

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive {

struct PresentStream::Cuda {
  Stream stream;
  Event slotReady;  // recorded on the frame's stream: its filter has run
  Event copied;     // recorded on the present stream: the copies have run
};

PresentStream::PresentStream() = default;

PresentStream::~PresentStream() {
  if (cuda_) cudaStreamSynchronize(cuda_->stream.get());  // a destructor: an error here changes nothing
}

void PresentStream::synchronize() {
  if (cuda_) cuda_->stream.synchronize();
}

void PresentStream::present(std::span<const Write> writes, cudaStream_t frameStream) {
  if (!cuda_) cuda_ = std::make_unique<Cuda>();
  const cudaStream_t s = cuda_->stream.get();
  cuda_->slotReady.record(frameStream);
  CL_CUDA(cudaStreamWaitEvent(s, cuda_->slotReady.get(), 0));
  for (const Write& w : writes) {
    // A new size or texels reallocate (and re-register) the texture: earlier copies into it finish first.
    if (w.texture->width() != w.frame.width || w.texture->height() != w.frame.height ||
        w.texture->texels() != w.frame.texels)
      synchronize();
    w.texture->writeFromDevice(w.frame, s);
  }
  cuda_->copied.record(s);
  CL_CUDA(cudaStreamWaitEvent(frameStream, cuda_->copied.get(), 0));
}

}  // namespace convlive
