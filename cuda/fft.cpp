#include "fft.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

#if __has_include(<cufft.h>)
#include <cufft.h>
#define CONVLIVE_HAVE_CUFFT_H 1
#endif

namespace convlive {

int fftGoodSize(int n) {
  if (n <= 1) return 1;
  for (int m = n;; ++m) {
    int k = m, threes = 0;
    while (k % 3 == 0) k /= 3, ++threes;
    if ((k & (k - 1)) == 0 && threes <= 4) return m;
  }
}

std::size_t FftGeometry::spectrumBytes() const { return std::size_t(padW / 2 + 1) * padH * 2 * sizeof(float); }
std::size_t FftGeometry::frameBytes() const {
  const std::size_t sets = magnitude ? 2 : 1;
  return sets * std::size_t(channels) * (planeValues() * sizeof(float) + spectrumBytes());
}
std::size_t FftGeometry::deviceBytes() const {
  return std::size_t(frames) * frameBytes() + (magnitude ? 2 : 1) * spectrumBytes();
}

namespace {
// The most values one cuFFT plan (32-bit sizes) and one grid (z: a frame) take.
constexpr std::size_t kMaxPlanValues = 2147483647;
constexpr int kMaxGroupFrames = 65535;
}  // namespace

FftGeometry fftGeometry(const ImageDesc& image, int radius, bool filterAlpha, Combine combine) {
  FftGeometry g;
  g.padW = fftGoodSize(image.width + 2 * radius);
  g.padH = fftGoodSize(image.height + 2 * radius);
  g.channels = image.copiesFourth(filterAlpha) ? 3 : image.channels;
  g.magnitude = combine == Combine::Magnitude;
  const std::size_t values = g.planeValues() * std::size_t(g.channels);  // a frame's, in one plan
  const std::size_t frames = std::min<std::size_t>(
      {std::max<std::size_t>(1, kFftGroupBytes / g.frameBytes()), std::max<std::size_t>(1, kMaxPlanValues / values),
       std::size_t(kMaxGroupFrames), std::size_t(std::max(1, image.batch))});
  g.frames = int(frames);
  g.groups = int((std::max(1, image.batch) + frames - 1) / frames);
  return g;
}

FftGeometry fftGeometry(int width, int height, int radius, bool filterAlpha, Combine combine) {
  return fftGeometry(ImageDesc::rgba8(width, height), radius, filterAlpha, combine);
}

double fftErrorEstimate(const Mask& mask, const FftGeometry& g, PixelType type) {
  const double eps = std::ldexp(1.0, -24);
  const double scale = type == PixelType::U8 ? 255 : type == PixelType::U16 ? 65535 : 1;
  return 3 * eps * std::log2(double(g.padW) * g.padH + 2) * scale * absoluteSum(mask.weights());
}

std::string fftSizeProblem(const ImageDesc& image, const FftGeometry& g) {
  if (double(g.padW) * g.padH * g.channels <= double(kMaxPlanValues)) return "";
  return "fft: a " + std::to_string(image.width) + "x" + std::to_string(image.height) + " frame padded to " +
         std::to_string(g.padW) + "x" + std::to_string(g.padH) + " in " + std::to_string(g.channels) +
         " planes is past what one cuFFT plan takes here (2^31 values)";
}

namespace {

#ifdef CONVLIVE_HAVE_CUFFT_H
// The few cuFFT entry points the variant calls, from the library loaded at run time.
struct Cufft {
  decltype(&cufftPlanMany) planMany = nullptr;
  decltype(&cufftSetStream) setStream = nullptr;
  decltype(&cufftExecR2C) execR2C = nullptr;
  decltype(&cufftExecC2R) execC2R = nullptr;
  decltype(&cufftDestroy) destroy = nullptr;
  std::string missing;  // "" when loaded
};

Cufft loadCufft() {
  Cufft api;
  std::vector<std::string> names;
  if (const char* path = std::getenv("CONVLIVE_CUFFT"); path && *path) {
    names.push_back(path);
  } else {
    names = {"libcufft.so.12", "libcufft.so", "/usr/local/cuda/lib64/libcufft.so.12",
             "/usr/local/cuda/targets/x86_64-linux/lib/libcufft.so.12"};
  }
  void* lib = nullptr;
  std::string errors;
  for (const std::string& n : names) {
    if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    const char* e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : n + ": not loadable");
  }
  if (!lib) {
    api.missing =
        "fft needs cuFFT (libcufft.so.12, part of the CUDA toolkit: apt install libcufft12 or the "
        "toolkit; CONVLIVE_CUFFT=/path/to/libcufft.so.12 names one) and could not load it: " +
        errors;
    return api;
  }
  // Kept loaded for the life of the process (plans may outlive any one caller).
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn && api.missing.empty()) api.missing = std::string("fft: the cuFFT library loaded has no ") + name;
  };
  sym(api.planMany, "cufftPlanMany");
  sym(api.setStream, "cufftSetStream");
  sym(api.execR2C, "cufftExecR2C");
  sym(api.execC2R, "cufftExecC2R");
  sym(api.destroy, "cufftDestroy");
  return api;
}

const Cufft& cufft() {
  static const Cufft api = loadCufft();
  return api;
}

void checkCufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS)
    throw std::runtime_error(
        std::string("fft: ") + call + " failed with cuFFT result " + std::to_string(int(r)) +
        (r == CUFFT_ALLOC_FAILED ? " (out of device memory: use a smaller frame or tensor2d)" : ""));
}
#define CL_CUFFT(call) checkCufft((call), #call)

// One batched plan of `planes` real planes padH x padW each way (RAII).
class Plan {
 public:
  Plan(int padW, int padH, int planes, cufftType type) {
    int n[2] = {padH, padW};
    const int real = padW * padH, spectrum = (padW / 2 + 1) * padH;
    const bool forward = type == CUFFT_R2C;
    CL_CUFFT(cufft().planMany(&handle_, 2, n, nullptr, 1, forward ? real : spectrum, nullptr, 1,
                              forward ? spectrum : real, type, planes));
  }
  ~Plan() {
    if (handle_) cufft().destroy(handle_);
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  cufftHandle get() const { return handle_; }

 private:
  cufftHandle handle_ = 0;
};
#endif

}  // namespace

const std::string& cufftMissing() {
#ifdef CONVLIVE_HAVE_CUFFT_H
  return cufft().missing;
#else
  static const std::string why = "fft: this build of convlive had no cufft.h (the CUDA toolkit's cuFFT headers)";
  return why;
#endif
}

struct FftConvolver::State {
#ifdef CONVLIVE_HAVE_CUFFT_H
  // What the plans and the spectra were made for.
  int radius = -1;
  FftGeometry geometry;
  std::vector<float> weights;
  bool prepared = false;
  // Plans for a whole group and, where the batch does not divide into groups, for the last one.
  std::unique_ptr<Plan> forward, inverse, forwardRest, inverseRest;
  int restFrames = 0;
  DeviceBuffer real, real2, complex, complex2, spectrum, maskWeights, direct;

  unsigned stamp = 0;  // the last group run's (kernels::FftPlanes::stamp)

  // Whether the plans made for `geometry` transform g's planes.
  bool samePlans(const FftGeometry& g) const {
    return forward && g.padW == geometry.padW && g.padH == geometry.padH && g.channels == geometry.channels &&
           g.frames == geometry.frames;
  }

  // The planes of a group of `frames` frames.
  kernels::FftPlanes planes(int frames) const {
    return {real.as<float>(),
            real2.as<float>(),
            complex.as<float2>(),
            complex2.as<float2>(),
            spectrum.as<const float2>(),
            maskWeights.as<const float>(),
            direct.as<unsigned>(),
            stamp,
            geometry.padW,
            geometry.padH,
            radius,
            geometry.channels,
            frames,
            geometry.magnitude};
  }

  // The plans and planes for this geometry and batch.
  void preparePlans(const FftGeometry& g, int batch) {
    const int rest = batch % g.frames;
    const bool same = samePlans(g);
    if (!same) {
      forward.reset();
      inverse.reset();
      forward = std::make_unique<Plan>(g.padW, g.padH, g.channels * g.frames, CUFFT_R2C);
      inverse = std::make_unique<Plan>(g.padW, g.padH, g.channels * g.frames, CUFFT_C2R);
    }
    if (!same || rest != restFrames) {
      forwardRest.reset();
      inverseRest.reset();
      if (rest) {
        forwardRest = std::make_unique<Plan>(g.padW, g.padH, g.channels * rest, CUFFT_R2C);
        inverseRest = std::make_unique<Plan>(g.padW, g.padH, g.channels * rest, CUFFT_C2R);
      }
      restFrames = rest;
    }
    const std::size_t planes = std::size_t(g.channels) * g.frames, sets = g.magnitude ? 2 : 1;
    const std::size_t plane = g.planeValues() * sizeof(float);
    const std::size_t spec = g.spectrumBytes();
    real.reserve(std::max(planes, sets) * plane);  // the mask's planes are made in it too
    complex.reserve(std::max(planes, sets) * spec);
    spectrum.reserve(sets * spec);
    if (direct.bytes() < std::size_t(g.frames) * sizeof(unsigned)) {  // new flags: none stamped yet
      direct.reserve(std::size_t(g.frames) * sizeof(unsigned));
      CL_CUDA(cudaMemset(direct.get(), 0, direct.bytes()));
      stamp = 0;
    }
    if (g.magnitude) {
      real2.reserve(planes * plane);
      complex2.reserve(planes * spec);
    }
  }

  // The mask's spectrum (and its transpose's), scaled by 1 / (padW padH) for cuFFT's unnormalised
  // inverse: the mask placed so that a circular convolution with it is the correlation the
  // reference computes (weight (dy, dx) at (-dy, -dx) modulo the plane). And its weights, for the
  // frames the transforms cannot take.
  void prepareSpectrum(const Mask& mask, cudaStream_t stream) {
    const FftGeometry& g = geometry;
    const std::size_t plane = g.planeValues(), sets = g.magnitude ? 2 : 1;
    std::vector<float> host(sets * plane, 0.f);
    const double scale = 1.0 / (double(g.padW) * g.padH);
    const int r = mask.radius();
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) {
        const std::size_t at = std::size_t((g.padH - dy) % g.padH) * g.padW + std::size_t((g.padW - dx) % g.padW);
        host[at] = float(mask.at(dy, dx) * scale);
        if (g.magnitude) host[plane + at] = float(mask.at(dx, dy) * scale);  // gy: the transpose
      }
    const Plan maskPlan(g.padW, g.padH, int(sets), CUFFT_R2C);
    CL_CUDA(cudaMemcpyAsync(real.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    CL_CUFFT(cufft().setStream(maskPlan.get(), stream));
    CL_CUFFT(cufft().execR2C(maskPlan.get(), real.as<cufftReal>(), complex.as<cufftComplex>()));
    const std::size_t spec = g.spectrumBytes();
    CL_CUDA(cudaMemcpyAsync(spectrum.get(), complex.get(), sets * spec, cudaMemcpyDeviceToDevice, stream));
    const std::vector<float>& w = mask.weights();
    maskWeights.reserve(w.size() * sizeof(float));
    CL_CUDA(cudaMemcpyAsync(maskWeights.get(), w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    // The host vector and the mask's plan go out of scope: wait for the work that reads them.
    CL_CUDA(cudaStreamSynchronize(stream));
  }
#endif
};

FftConvolver::FftConvolver() : s_(std::make_unique<State>()) {}
FftConvolver::~FftConvolver() = default;

void FftConvolver::run(const kernels::FftLaunch& l, const Mask& mask) {
#ifdef CONVLIVE_HAVE_CUFFT_H
  if (const std::string& why = cufftMissing(); !why.empty()) throw std::runtime_error(why);
  State& s = *s_;
  const int batch = std::max(1, l.image.batch);
  const FftGeometry g = fftGeometry(l.image, mask.radius(), l.filterAlpha, l.combine);
  const bool same = s.prepared && s.samePlans(g) && g.magnitude == s.geometry.magnitude && mask.radius() == s.radius &&
                    batch % g.frames == s.restFrames;
  if (!same || mask.weights() != s.weights) {
    s.prepared = false;  // not prepared until the spectrum is made
    s.preparePlans(g, batch);
    s.geometry = g;
    s.radius = mask.radius();
    s.prepareSpectrum(mask, l.stream);
    s.weights = mask.weights();
    s.prepared = true;
  }
  for (int first = 0; first < batch; first += g.frames) {
    const int frames = std::min(g.frames, batch - first);
    const bool whole = frames == g.frames;
    const Plan& forward = whole ? *s.forward : *s.forwardRest;
    const Plan& inverse = whole ? *s.inverse : *s.inverseRest;
    if (++s.stamp == 0) {  // after 2^32 - 1 runs: the flags start again from zero
      CL_CUDA(cudaMemsetAsync(s.direct.get(), 0, s.direct.bytes(), l.stream));
      s.stamp = 1;
    }
    const kernels::FftPlanes f = s.planes(frames);
    kernels::fftPad(l, f, first);
    CL_CUFFT(cufft().setStream(forward.get(), l.stream));
    CL_CUFFT(cufft().execR2C(forward.get(), f.real, reinterpret_cast<cufftComplex*>(f.complex)));
    kernels::fftMultiply(l, f);
    CL_CUFFT(cufft().setStream(inverse.get(), l.stream));
    CL_CUFFT(cufft().execC2R(inverse.get(), reinterpret_cast<cufftComplex*>(f.complex), f.real));
    if (f.magnitude) CL_CUFFT(cufft().execC2R(inverse.get(), reinterpret_cast<cufftComplex*>(f.complex2), f.real2));
    kernels::fftPack(l, f, first);
  }
#else
  (void)l;
  (void)mask;
  throw std::runtime_error(cufftMissing());
#endif
}

}  // namespace convlive
