#include "fft.hpp"

#include <dlfcn.h>

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

std::size_t FftGeometry::deviceBytes() const {
  const std::size_t plane = std::size_t(padW) * padH * sizeof(float);
  const std::size_t spectrum = std::size_t(padW / 2 + 1) * padH * 2 * sizeof(float);
  const std::size_t sets = magnitude ? 2 : 1;
  return sets * channels * (plane + spectrum) + sets * spectrum;
}

FftGeometry fftGeometry(int width, int height, int radius, bool filterAlpha, Combine combine) {
  FftGeometry g;
  g.padW = fftGoodSize(width + 2 * radius);
  g.padH = fftGoodSize(height + 2 * radius);
  g.channels = filterAlpha ? 4 : 3;
  g.magnitude = combine == Combine::Magnitude;
  return g;
}

double fftErrorEstimate(const Mask& mask, const FftGeometry& g) {
  const double eps = std::ldexp(1.0, -24);
  return 3 * eps * std::log2(double(g.padW) * g.padH + 2) * 255 * absoluteSum(mask.weights());
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

// One batched plan of `channels` real planes padH x padW each way (RAII).
class Plan {
 public:
  Plan(int padW, int padH, int channels, cufftType type) {
    int n[2] = {padH, padW};
    const int real = padW * padH, spectrum = (padW / 2 + 1) * padH;
    const bool forward = type == CUFFT_R2C;
    CL_CUFFT(cufft().planMany(&handle_, 2, n, nullptr, 1, forward ? real : spectrum, nullptr, 1,
                              forward ? spectrum : real, type, channels));
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
  int width = -1, height = -1, radius = -1;
  FftGeometry geometry;
  std::vector<float> weights;
  std::unique_ptr<Plan> forward, inverse;
  DeviceBuffer real, real2, complex, complex2, spectrum;

  kernels::FftPlanes planes() const {
    return {real.as<float>(),
            real2.as<float>(),
            complex.as<float2>(),
            complex2.as<float2>(),
            spectrum.as<const float2>(),
            geometry.padW,
            geometry.padH,
            radius,
            geometry.channels,
            geometry.magnitude};
  }

  // The plans and planes for this frame size and plane count.
  void preparePlans(const FftGeometry& g) {
    const bool same = forward && g.padW == geometry.padW && g.padH == geometry.padH && g.channels == geometry.channels;
    if (!same) {
      forward.reset();
      inverse.reset();
      forward = std::make_unique<Plan>(g.padW, g.padH, g.channels, CUFFT_R2C);
      inverse = std::make_unique<Plan>(g.padW, g.padH, g.channels, CUFFT_C2R);
    }
    const std::size_t plane = std::size_t(g.padW) * g.padH * sizeof(float);
    const std::size_t spec = std::size_t(g.padW / 2 + 1) * g.padH * sizeof(float2);
    real.reserve(g.channels * plane);
    complex.reserve(g.channels * spec);
    spectrum.reserve((g.magnitude ? 2 : 1) * spec);
    if (g.magnitude) {
      real2.reserve(g.channels * plane);
      complex2.reserve(g.channels * spec);
    }
  }

  // The mask's spectrum (and its transpose's), scaled by 1 / (padW padH) for cuFFT's unnormalised
  // inverse: the mask placed so that a circular convolution with it is the correlation the
  // reference computes (weight (dy, dx) at (-dy, -dx) modulo the plane).
  void prepareSpectrum(const Mask& mask, cudaStream_t stream) {
    const FftGeometry& g = geometry;
    const std::size_t plane = std::size_t(g.padW) * g.padH;
    std::vector<float> host(g.channels * plane, 0.f);
    const double scale = 1.0 / (double(g.padW) * g.padH);
    const int r = mask.radius();
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) {
        const std::size_t at = std::size_t((g.padH - dy) % g.padH) * g.padW + std::size_t((g.padW - dx) % g.padW);
        host[at] = float(mask.at(dy, dx) * scale);
        if (g.magnitude) host[plane + at] = float(mask.at(dx, dy) * scale);  // gy: the transpose
      }
    CL_CUDA(cudaMemcpyAsync(real.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    CL_CUFFT(cufft().setStream(forward->get(), stream));
    CL_CUFFT(cufft().execR2C(forward->get(), real.as<cufftReal>(), complex.as<cufftComplex>()));
    const std::size_t spec = std::size_t(g.padW / 2 + 1) * g.padH * sizeof(float2);
    CL_CUDA(
        cudaMemcpyAsync(spectrum.get(), complex.get(), (g.magnitude ? 2 : 1) * spec, cudaMemcpyDeviceToDevice, stream));
    // The host vector goes out of scope: wait for the copy that reads it.
    CL_CUDA(cudaStreamSynchronize(stream));
  }
#endif
};

FftConvolver::FftConvolver() : s_(std::make_unique<State>()) {}
FftConvolver::~FftConvolver() = default;

void FftConvolver::run(const kernels::Launch& l, const Mask& mask) {
#ifdef CONVLIVE_HAVE_CUFFT_H
  if (const std::string& why = cufftMissing(); !why.empty()) throw std::runtime_error(why);
  State& s = *s_;
  const FftGeometry g = fftGeometry(l.width, l.height, mask.radius(), l.filterAlpha, l.combine);
  const bool sameSize = l.width == s.width && l.height == s.height && mask.radius() == s.radius &&
                        g.channels == s.geometry.channels && g.magnitude == s.geometry.magnitude;
  if (!sameSize || mask.weights() != s.weights) {
    s.weights.clear();  // not prepared until the spectrum is made
    s.preparePlans(g);
    s.geometry = g;
    s.width = l.width;
    s.height = l.height;
    s.radius = mask.radius();
    s.prepareSpectrum(mask, l.stream);
    s.weights = mask.weights();
  }
  const kernels::FftPlanes f = s.planes();
  kernels::fftPad(l, f);
  CL_CUFFT(cufft().setStream(s.forward->get(), l.stream));
  CL_CUFFT(cufft().execR2C(s.forward->get(), f.real, reinterpret_cast<cufftComplex*>(f.complex)));
  kernels::fftMultiply(l, f);
  CL_CUFFT(cufft().setStream(s.inverse->get(), l.stream));
  CL_CUFFT(cufft().execC2R(s.inverse->get(), reinterpret_cast<cufftComplex*>(f.complex), f.real));
  if (f.magnitude) CL_CUFFT(cufft().execC2R(s.inverse->get(), reinterpret_cast<cufftComplex*>(f.complex2), f.real2));
  kernels::fftPack(l, f);
#else
  (void)l;
  (void)mask;
  throw std::runtime_error(cufftMissing());
#endif
}

}  // namespace convlive
