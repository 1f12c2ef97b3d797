#include "frame_runner.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "convlive/check.hpp"

namespace convlive::gstelement {

void copyRows(const std::uint8_t* from, std::size_t fromPitch, std::uint8_t* to, std::size_t toPitch,
              std::size_t rowBytes, int rows) {
  if (fromPitch == rowBytes && toPitch == rowBytes) {
    std::memcpy(to, from, rowBytes * std::size_t(rows));
    return;
  }
  for (int y = 0; y < rows; ++y)
    std::memcpy(to + std::size_t(y) * toPitch, from + std::size_t(y) * fromPitch, rowBytes);
}

void copyPixels(ConstImageView from, ImageView to) {
  copyRows(from.data, from.pitch, to.data, to.pitch, std::size_t(from.width) * 4, from.height);
}

void copyPlanes(const ConstYuvView& from, const YuvView& to) {
  for (int p = 0; p < yuvPlaneCount(from.format); ++p) {
    const std::size_t rowBytes = yuvRowBytes(from.format, from.width, p);
    for (int y = 0; y < yuvPlaneRows(from.height, p); ++y)
      std::memcpy(to.planes[p] + std::size_t(y) * to.pitches[p], from.planes[p] + std::size_t(y) * from.pitches[p],
                  rowBytes);
  }
}

void FrameRunner::reset() {
  if (!gpu_) return;
  try {
    const DeviceScope scope(device_);
    gpu_.reset();
  } catch (const std::exception&) {
    gpu_.reset();  // the device cannot be made current: released where the runtime can (RAII, quietly)
  }
}

void FrameRunner::prepare(const Plan& plan, std::optional<YuvFormat> yuv) {
  const ImageDesc& image = plan.image();
  const int width = image.width, height = image.height;
  const int device = plan.options().device;
  if (plan.onGpu()) {
    if (!gpu_ || image != image_ || yuv != yuv_ || device != device_) {
      reset();  // the old frames go before the new ones are made, on their own device
      device_ = device;
      const DeviceScope scope(device);
      auto g = std::make_unique<Gpu>();
      if (yuv) {
        g->in = DeviceImage(width, height);
        g->out = DeviceImage(width, height);
        const YuvLayout layout = packedYuvLayout(*yuv, width, height);
        g->yuv = DeviceYuvFrame(layout);
        g->hostYuv = PinnedBuffer(layout.bytes);
      } else if (image.isRgba8()) {
        g->in = DeviceImage(width, height);
        g->out = DeviceImage(width, height);
        const std::size_t bytes = std::size_t(width) * 4 * std::size_t(height);
        g->hostIn = PinnedBuffer(bytes);
        g->hostOut = PinnedBuffer(bytes);
      } else {
        g->frameIn = DeviceBuffer(image.span());
        g->frameOut = DeviceBuffer(image.span());
        g->hostIn = PinnedBuffer(image.span());
        g->hostOut = PinnedBuffer(image.span());
      }
      gpu_ = std::move(g);
    }
  } else {
    reset();
  }
  image_ = image;
  yuv_ = yuv;
}

void FrameRunner::checkSize(int width, int height) const {
  if (width != image_.width || height != image_.height)
    throw std::invalid_argument("frame " + std::to_string(width) + "x" + std::to_string(height) +
                                " does not match the prepared " + std::to_string(image_.width) + "x" +
                                std::to_string(image_.height));
}

void FrameRunner::run(Plan& plan, const FrameRows& in, const FrameRows& out) {
  checkSize(in.width, in.height);
  checkSize(out.width, out.height);
  if (yuv_) throw std::logic_error("FrameRunner: prepared for YUV frames, given one-plane ones");
  if (plan.image() != image_)
    throw std::logic_error("FrameRunner: prepared for " + image_.str() + ", given a plan for " + plan.image().str());
  if (image_.isRgba8()) {
    const ConstImageView from(in.data, in.width, in.height, in.pitch);
    const ImageView to{out.data, out.width, out.height, out.pitch};
    if (plan.onGpu())
      runOnGpu(plan, from, to);
    else
      runOnHost(plan, from, to);
  } else if (plan.onGpu()) {
    runFrameOnGpu(plan, in, out);
  } else {
    runFrameOnHost(plan, in, out);
  }
}

void FrameRunner::runOnGpu(Plan& plan, ConstImageView in, ImageView out) {
  if (!gpu_)
    throw std::logic_error("FrameRunner: " + plan.variant().name + " runs on the GPU but was prepared for the CPU");
  const DeviceScope scope(device_);  // the stream and frames are this device's
  Gpu& g = *gpu_;
  const int width = image_.width, height = image_.height;
  const std::size_t packed = std::size_t(width) * 4;
  const ImageView hostIn{static_cast<std::uint8_t*>(g.hostIn.get()), width, height, packed};
  const ImageView hostOut{static_cast<std::uint8_t*>(g.hostOut.get()), width, height, packed};
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
  const int width = image_.width, height = image_.height;
  const std::size_t packed = std::size_t(width) * 4;
  ConstImageView from = in;
  ImageView to = out;
  if (!fits(in.data, in.pitch)) {
    packedIn_.resize(packed * std::size_t(height));
    const ImageView copy{packedIn_.data(), width, height, packed};
    copyPixels(in, copy);
    from = copy;
  }
  const bool packOut = !fits(out.data, out.pitch);
  if (packOut) {
    packedOut_.resize(packed * std::size_t(height));
    to = ImageView{packedOut_.data(), width, height, packed};
  }
  plan.run(from, to);
  if (packOut) copyPixels(to, out);
}

void FrameRunner::runFrameOnGpu(Plan& plan, const FrameRows& in, const FrameRows& out) {
  if (!gpu_)
    throw std::logic_error("FrameRunner: " + plan.variant().name + " runs on the GPU but was prepared for the CPU");
  const DeviceScope scope(device_);  // the stream and frames are this device's
  Gpu& g = *gpu_;
  const std::size_t pitch = image_.rowPitch(), rowBytes = image_.rowBytes(), bytes = image_.span();
  auto* hostIn = static_cast<std::uint8_t*>(g.hostIn.get());
  auto* hostOut = static_cast<std::uint8_t*>(g.hostOut.get());
  const cudaStream_t s = g.stream.get();
  copyRows(in.data, in.pitch, hostIn, pitch, rowBytes, image_.height);
  CL_CUDA(cudaMemcpyAsync(g.frameIn.get(), hostIn, bytes, cudaMemcpyHostToDevice, s));
  plan.run(g.frameIn.get(), g.frameOut.get(), s);
  CL_CUDA(cudaMemcpyAsync(hostOut, g.frameOut.get(), bytes, cudaMemcpyDeviceToHost, s));
  g.stream.synchronize();
  copyRows(hostOut, pitch, out.data, out.pitch, rowBytes, image_.height);
}

void FrameRunner::runFrameOnHost(Plan& plan, const FrameRows& in, const FrameRows& out) {
  // Plan::run takes rows at the plan's pitch on both sides, starting at a multiple of the value size.
  const std::size_t pitch = image_.rowPitch(), rowBytes = image_.rowBytes(), align = pixelTypeBytes(image_.type);
  const auto fits = [&](const std::uint8_t* data, std::size_t p) {
    return p == pitch && reinterpret_cast<std::uintptr_t>(data) % align == 0;
  };
  const std::uint8_t* from = in.data;
  std::uint8_t* to = out.data;
  if (!fits(in.data, in.pitch)) {
    packedIn_.resize(image_.span());
    copyRows(in.data, in.pitch, packedIn_.data(), pitch, rowBytes, image_.height);
    from = packedIn_.data();
  }
  const bool copyOut = !fits(out.data, out.pitch);
  if (copyOut) {
    packedOut_.resize(image_.span());
    to = packedOut_.data();
  }
  plan.run(from, to);
  if (copyOut) copyRows(to, pitch, out.data, out.pitch, rowBytes, image_.height);
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
  const DeviceScope scope(device_);  // the stream and frames are this device's
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
  const int width = image_.width, height = image_.height;
  const std::size_t packed = std::size_t(width) * 4;
  packedIn_.resize(packed * std::size_t(height));
  packedOut_.resize(packed * std::size_t(height));
  const ImageView rgbaIn{packedIn_.data(), width, height, packed};
  const ImageView rgbaOut{packedOut_.data(), width, height, packed};
  referenceYuvToRgba(in, rgbaIn, colour);
  plan.run(rgbaIn, rgbaOut);
  referenceRgbaToYuv(rgbaOut, out, colour);
}

}  // namespace convlive::gstelement
