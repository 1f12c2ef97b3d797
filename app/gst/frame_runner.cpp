#include "frame_runner.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "convlive/check.hpp"

namespace convlive::gstelement {

void copyPixels(ConstImageView from, ImageView to) {
  const std::size_t rowBytes = std::size_t(from.width) * 4;
  if (from.pitch == rowBytes && to.pitch == rowBytes) {
    std::memcpy(to.data, from.data, rowBytes * std::size_t(from.height));
    return;
  }
  for (int y = 0; y < from.height; ++y) std::memcpy(to.row(y), from.row(y), rowBytes);
}

void copyPlanes(const ConstYuvView& from, const YuvView& to) {
  for (int p = 0; p < yuvPlaneCount(from.format); ++p) {
    const std::size_t rowBytes = yuvRowBytes(from.format, from.width, p);
    for (int y = 0; y < yuvPlaneRows(from.height, p); ++y)
      std::memcpy(to.planes[p] + std::size_t(y) * to.pitches[p], from.planes[p] + std::size_t(y) * from.pitches[p],
                  rowBytes);
  }
}

void FrameRunner::prepare(const Plan& plan, std::optional<YuvFormat> yuv) {
  const int width = plan.image().width, height = plan.image().height;
  if (plan.onGpu()) {
    if (!gpu_ || width != width_ || height != height_ || yuv != yuv_) {
      gpu_.reset();  // the old frames go before the new ones are made
      auto g = std::make_unique<Gpu>();
      g->in = DeviceImage(width, height);
      g->out = DeviceImage(width, height);
      if (yuv) {
        const YuvLayout layout = packedYuvLayout(*yuv, width, height);
        g->yuv = DeviceYuvFrame(layout);
        g->hostYuv = PinnedBuffer(layout.bytes);
      } else {
        const std::size_t bytes = std::size_t(width) * 4 * std::size_t(height);
        g->hostIn = PinnedBuffer(bytes);
        g->hostOut = PinnedBuffer(bytes);
      }
      gpu_ = std::move(g);
    }
  } else {
    gpu_.reset();
  }
  width_ = width;
  height_ = height;
  yuv_ = yuv;
}

void FrameRunner::checkSize(int width, int height) const {
  if (width != width_ || height != height_)
    throw std::invalid_argument("frame " + std::to_string(width) + "x" + std::to_string(height) +
                                " does not match the prepared " + std::to_string(width_) + "x" +
                                std::to_string(height_));
}

void FrameRunner::run(Plan& plan, ConstImageView in, ImageView out) {
  checkSize(in.width, in.height);
  checkSize(out.width, out.height);
  if (yuv_) throw std::logic_error("FrameRunner: prepared for YUV frames, given RGBA8 ones");
  if (plan.onGpu())
    runOnGpu(plan, in, out);
  else
    runOnHost(plan, in, out);
}

void FrameRunner::runOnGpu(Plan& plan, ConstImageView in, ImageView out) {
  if (!gpu_)
    throw std::logic_error("FrameRunner: " + plan.variant().name + " runs on the GPU but was prepared for the CPU");
  Gpu& g = *gpu_;
  const std::size_t packed = std::size_t(width_) * 4;
  const ImageView hostIn{static_cast<std::uint8_t*>(g.hostIn.get()), width_, height_, packed};
  const ImageView hostOut{static_cast<std::uint8_t*>(g.hostOut.get()), width_, height_, packed};
  const cudaStream_t s = g.stream.get();
  copyPixels(in, hostIn);
  g.in.upload(hostIn, s);
  plan.run(g.in.view(), g.out.view(), s);
  g.out.download(hostOut, s);
  g.stream.synchronize();
  copyPixels(hostOut, out);
}

void FrameRunner::runOnHost(Plan& plan, ConstImageView in, ImageView out) {
  // The CPU variants take rows whose stride is a multiple of 4 bytes; others go through packed copies.
  const auto fits = [](const std::uint8_t* data, std::size_t pitch) {
    return pitch % 4 == 0 && reinterpret_cast<std::uintptr_t>(data) % 4 == 0;
  };
  const std::size_t packed = std::size_t(width_) * 4;
  ConstImageView from = in;
  ImageView to = out;
  if (!fits(in.data, in.pitch)) {
    packedIn_.resize(packed * std::size_t(height_));
    const ImageView copy{packedIn_.data(), width_, height_, packed};
    copyPixels(in, copy);
    from = copy;
  }
  const bool packOut = !fits(out.data, out.pitch);
  if (packOut) {
    packedOut_.resize(packed * std::size_t(height_));
    to = ImageView{packedOut_.data(), width_, height_, packed};
  }
  plan.run(from, to);
  if (packOut) copyPixels(to, out);
}

void FrameRunner::runYuv(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out) {
  checkSize(in.width, in.height);
  checkSize(out.width, out.height);
  if (!yuv_ || in.format != *yuv_ || out.format != *yuv_)
    throw std::logic_error("FrameRunner: the YUV frames are not of the prepared format");
  if (plan.onGpu())
    runYuvOnGpu(plan, colour, in, out);
  else
    runYuvOnHost(plan, colour, in, out);
}

void FrameRunner::runYuvOnGpu(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out) {
  if (!gpu_)
    throw std::logic_error("FrameRunner: " + plan.variant().name + " runs on the GPU but was prepared for the CPU");
  Gpu& g = *gpu_;
  const YuvLayout& layout = g.yuv.layout();
  const YuvView host = yuvViewAt(layout, static_cast<std::uint8_t*>(g.hostYuv.get()));
  const YuvView device = g.yuv.view();
  std::uint8_t* const deviceBase = device.planes[0];  // a packed layout starts with plane 0
  const cudaStream_t s = g.stream.get();
  copyPlanes(in, host);
  CL_CUDA(cudaMemcpyAsync(deviceBase, g.hostYuv.get(), layout.bytes, cudaMemcpyHostToDevice, s));
  yuvToRgba(device, g.in.view(), colour, s);
  plan.run(g.in.view(), g.out.view(), s);
  rgbaToYuv(g.out.view(), device, colour, s);  // the upload was read by yuvToRgba before, in stream order
  CL_CUDA(cudaMemcpyAsync(g.hostYuv.get(), deviceBase, layout.bytes, cudaMemcpyDeviceToHost, s));
  g.stream.synchronize();
  copyPlanes(host, out);
}

void FrameRunner::runYuvOnHost(Plan& plan, ColourSpec colour, const ConstYuvView& in, const YuvView& out) {
  const std::size_t packed = std::size_t(width_) * 4;
  packedIn_.resize(packed * std::size_t(height_));
  packedOut_.resize(packed * std::size_t(height_));
  const ImageView rgbaIn{packedIn_.data(), width_, height_, packed};
  const ImageView rgbaOut{packedOut_.data(), width_, height_, packed};
  referenceYuvToRgba(in, rgbaIn, colour);
  plan.run(rgbaIn, rgbaOut);
  referenceRgbaToYuv(rgbaOut, out, colour);
}

}  // namespace convlive::gstelement
