#include "present_stream.hpp"

#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive {

struct PresentStream::Cuda {
  Stream stream;
  Event slotReady;  // recorded on the frame's stream: its filter has run
  Event copied;     // recorded on the present stream: the copies have run
  // Around each texture's copy alone (not its map, which waits for GL to release the texture).
  struct CopyTimes {
    Event start, end;
  };
  std::vector<CopyTimes> copies;
  std::size_t timed = 0;         // copies holding a present not yet read
  std::optional<double> copyMs;  // the last one read, until taken

  // Reads the recorded present's time if its copies have run (without waiting for them).
  void readCopyTime() {
    if (timed == 0) return;
    const cudaError_t q = cudaEventQuery(copied.get());
    if (q == cudaErrorNotReady) return;
    CL_CUDA(q);
    double ms = 0;
    for (std::size_t i = 0; i < timed; ++i) ms += copies[i].end.elapsedSince(copies[i].start);
    copyMs = ms;
    timed = 0;
  }
};

PresentStream::PresentStream() = default;

PresentStream::~PresentStream() {
  if (cuda_) cudaStreamSynchronize(cuda_->stream.get());  // a destructor: an error here changes nothing
}

void PresentStream::synchronize() {
  if (cuda_) cuda_->stream.synchronize();
}

std::optional<double> PresentStream::takeCopyMs() {
  if (!cuda_) return std::nullopt;
  cuda_->readCopyTime();
  return std::exchange(cuda_->copyMs, std::nullopt);
}

void PresentStream::present(std::span<const Write> writes, cudaStream_t frameStream) {
  if (!cuda_) cuda_ = std::make_unique<Cuda>();
  cuda_->readCopyTime();  // the last present's time, before its events are recorded again
  cuda_->timed = 0;       // not run yet: not timed
  const cudaStream_t s = cuda_->stream.get();
  cuda_->slotReady.record(frameStream);
  CL_CUDA(cudaStreamWaitEvent(s, cuda_->slotReady.get(), 0));
  if (cuda_->copies.size() < writes.size()) cuda_->copies.resize(writes.size());
  for (const Write& w : writes) {
    // A new size or texels reallocate (and re-register) the texture: earlier copies into it finish first.
    if (w.texture->width() != w.frame.width || w.texture->height() != w.frame.height ||
        w.texture->texels() != w.frame.texels)
      synchronize();
    const Cuda::CopyTimes& t = cuda_->copies[std::size_t(&w - writes.data())];
    w.texture->writeFromDevice(w.frame, s, t.start.get(), t.end.get());
  }
  cuda_->copied.record(s);
  cuda_->timed = writes.size();
  CL_CUDA(cudaStreamWaitEvent(frameStream, cuda_->copied.get(), 0));
}

}  // namespace convlive
