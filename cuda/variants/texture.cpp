// texture: one thread per output pixel reading the image through a texture object, so the
// texture unit does the border addressing where a hardware mode matches the border. Kernel:
// textureKernel in kernels/direct.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

using Code = Problem::Code;

// Past the checks every variant makes: the frame within what a 2D texture over pitched memory
// takes on this device (131072 x 65000 texels on every device so far: below the grid's rows), then
// the grid's rows of blocks (a tile high each).
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  int wide = 0, tall = 0;
  if (cudaDeviceGetAttribute(&wide, cudaDevAttrMaxTexture2DLinearWidth, deviceInfo().index) == cudaSuccess &&
      cudaDeviceGetAttribute(&tall, cudaDevAttrMaxTexture2DLinearHeight, deviceInfo().index) == cudaSuccess) {
    const char* how = "(a 2D texture over pitched memory, on this device)";
    if (w > wide) {
      const std::string instead = anySizeInstead(p, w, h);
      return problem(Code::CannotRun, "variant",
                     "texture takes frames up to " + std::to_string(wide) + " pixels wide " + how + "; this one is " +
                         std::to_string(w) + ": use " + instead,
                     "variant", instead);
    }
    if (h > tall) return tallFrameProblem(v, p, w, h, tall, how);
  }
  return gridRowsWhyNot(v, p, w, h);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  // Zero and clamp map onto hardware address modes with unnormalized coordinates; wrap needs
  // normalized ones; mirror (reflect-101) has no hardware mode: clamp reads, index computed.
  const bool normalized = p.border == Border::Wrap;
  const int mode = p.border == Border::Zero ? cudaAddressModeBorder
                   : normalized             ? cudaAddressModeWrap
                                            : cudaAddressModeClamp;
  auto& cache = ws.impl().textures;
  auto it = std::find_if(cache.begin(), cache.end(), [&](const auto& c) {
    return c.data == in.data && c.width == in.width && c.height == in.height && c.pitch == in.pitch && c.mode == mode;
  });
  if (it == cache.end()) {
    if (cache.size() >= 8) {
      CL_CUDA(cudaStreamSynchronize(s));  // the oldest may still be read by a queued kernel
      cache.erase(cache.begin());
    }
    cache.push_back({in.data, in.width, in.height, in.pitch, mode, TextureObject(in, mode, normalized)});
    it = cache.end() - 1;
  }
  kernels::texture(l, it->tex.get(), normalized, pp.mask2d());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeTexture(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(v, p, w, h), radiusOf(p), kernels::DirectVariant::Texture);
}

}  // namespace

Variant textureVariant() {
  return {
      .name = "texture",
      .description = "one thread per pixel; image read through a texture object with hardware border addressing",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{16, 16}, {32, 8}, {8, 8}, {32, 32}},
      .tileMeaning = "thread block",
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
