// texture: one thread per output pixel reading the image through a texture object, so the
// texture unit does the border addressing where a hardware mode matches the border. Kernel:
// textureKernel in kernels/direct.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

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
      .whyNotImpl = commonWhyNot,  // nothing past the checks every variant makes
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
