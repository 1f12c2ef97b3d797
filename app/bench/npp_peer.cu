// npp-peer: times NVIDIA NPP's filters on the benchmark's job, measured as convlive-bench and
// peers.py measure theirs, and writes rows in peers.py's JSON format (impl, mask, radius, width,
// height, median_ms, min_ms, p90_ms, mpix_s, max_abs_err, notes, error).
//
// Not part of the CMake build (NPP comes with the CUDA toolkit's full install, which a build machine
// may lack): built where it runs, for that GPU (sm_90: Hopper):
//   nvcc -O2 -std=c++17 -arch=sm_90 -o npp-peer app/bench/npp_peer.cu -lnppif -lnppc
//   ./npp-peer --out npp.json [--sizes 1920x1080,3840x2160] [--radii 1,2,4,8,16,32] [--custom-radii 8,16,32]
// Frames are RGBA8 (4 channels, all filtered), random, 3 of them rotated so the L2 cache does not
// flatter; replicate border; 5 warm-up calls, 30 timed calls bracketed by CUDA events, median.
// At r = 1 and 2 it also times NPP's fixed-mask filters of the other built-in kinds (timing only):
// Sobel horizontal + vertical (r = 1; no 4-channel magnitude in NPP), Sharpen (r = 1), Laplace
// (3x3, 5x5).
// Each function is checked once on a small frame against a float64 CPU correlation with the same
// weights (NPP convolves, so it is handed the weights reversed); max_abs_err is the largest
// difference in levels (0.5 = correctly rounded; NPP's row + column pair rounds the row pass to
// 8 bits, which shows here).
//
// Per pixel type (--types 8u_C1,8u_C3,8u_C4,16u_C1,16u_C3,16u_C4,32f_C1,32f_C3,32f_C4; default size
// 3840x2160, --sizes overrides; --custom-radii is not used): for each radius,
// nppiFilterRowBorder32f_<T>_<C>R_Ctx + nppiFilterColumnBorder32f_<T>_<C>R_Ctx (32f:
// nppiFilterRowBorder_32f_<C>R_Ctx + nppiFilterColumnBorder_32f_<C>R_Ctx), the gaussian's own
// weights, any radius; and nppiFilterGaussBorder_<T>_<C>R_Ctx for r = 1..7 (NPP's fixed 3x3..15x15
// masks with its own weights: timing only, max_abs_err null). Random values of the type (integers
// over their whole range, floats in 0..1); all channels filtered (C4R: the 4th too); replicate
// border. Rows add type ("16u_C1"), convlive_type ("u16x1"), channels and function; max_abs_err is
// in levels for integers and in values for 32f, against a float64 separable correlation on a
// 160x96 frame (r <= 16). NPP has no 16f separable filters: f16 is not timed.
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                                                  \
  do {                                                                                                 \
    cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

struct Frame {
  Npp8u* data = nullptr;
  int width = 0, height = 0;
  size_t pitch = 0;
  Frame(int w, int h) : width(w), height(h) { CHECK_CUDA(cudaMallocPitch(&data, &pitch, size_t(w) * 4, h)); }
  ~Frame() { cudaFree(data); }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;
  Frame(Frame&& o) noexcept : data(o.data), width(o.width), height(o.height), pitch(o.pitch) { o.data = nullptr; }
  Frame& operator=(Frame&&) = delete;
};

std::vector<float> gaussian1d(int r) {
  const double sigma = 0.3 * (r - 1) + 0.8;
  std::vector<double> g(2 * r + 1);
  double s = 0;
  for (int k = -r; k <= r; ++k) s += g[k + r] = std::exp(-double(k) * k / (2 * sigma * sigma));
  std::vector<float> out;
  for (double v : g) out.push_back(float(v / s));
  return out;
}

std::vector<float> custom2d(int r, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(0.0, 1.0);
  const int n = 2 * r + 1;
  std::vector<double> w(n * n);
  double s = 0;
  for (auto& v : w) s += v = d(rng);
  std::vector<float> out;
  for (double v : w) out.push_back(float(v / s));
  return out;
}

// Correlation with `w` ((2ry+1) x (2rx+1), row-major), replicate border, float64, rounded.
std::vector<double> reference(const std::vector<unsigned char>& in, int W, int H, const std::vector<float>& w, int rx,
                              int ry) {
  std::vector<double> out(in.size());
  const int nx = 2 * rx + 1;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) {
        double s = 0;
        for (int dy = -ry; dy <= ry; ++dy)
          for (int dx = -rx; dx <= rx; ++dx) {
            const int sy = std::clamp(y + dy, 0, H - 1), sx = std::clamp(x + dx, 0, W - 1);
            s += double(w[(dy + ry) * nx + dx + rx]) * in[(size_t(sy) * W + sx) * 4 + c];
          }
        out[(size_t(y) * W + x) * 4 + c] = std::clamp(std::nearbyint(s), 0.0, 255.0);
      }
  return out;
}

NppStreamContext contextFor(cudaStream_t s) {
  NppStreamContext c{};
  int dev = 0;
  CHECK_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CHECK_CUDA(cudaGetDeviceProperties(&p, dev));
  c.hStream = s;
  c.nCudaDeviceId = dev;
  c.nMultiProcessorCount = p.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major;
  c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  CHECK_CUDA(cudaStreamGetFlags(s, &c.nStreamFlags));
  return c;
}

// One NPP call: in -> out on the context's stream; returns NPP's status.
using Call = std::function<NppStatus(const Frame& in, Frame& out)>;

struct Timing {
  double median = 0, min = 0, p90 = 0;
  std::string error;
};

template <class Fr, class C>
Timing timeCall(const C& call, std::vector<Fr>& ins, Fr& out, cudaStream_t s, int repeats) {
  Timing t;
  for (int i = 0; i < 5; ++i)
    if (NppStatus st = call(ins[i % ins.size()], out); st != NPP_SUCCESS) {
      t.error = "NPP status " + std::to_string(int(st));
      return t;
    }
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<cudaEvent_t> a(repeats), b(repeats);
  for (int i = 0; i < repeats; ++i) {
    CHECK_CUDA(cudaEventCreate(&a[i]));
    CHECK_CUDA(cudaEventCreate(&b[i]));
  }
  for (int i = 0; i < repeats; ++i) {
    CHECK_CUDA(cudaEventRecord(a[i], s));
    call(ins[i % ins.size()], out);
    CHECK_CUDA(cudaEventRecord(b[i], s));
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<float> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    CHECK_CUDA(cudaEventElapsedTime(&ms[i], a[i], b[i]));
    cudaEventDestroy(a[i]);
    cudaEventDestroy(b[i]);
  }
  std::sort(ms.begin(), ms.end());
  t.median = ms[ms.size() / 2];
  t.min = ms.front();
  t.p90 = ms[std::min(ms.size() - 1, ms.size() * 9 / 10)];
  return t;
}

// Runs `call` once on a small random frame and compares with the float64 correlation.
double maxError(const Call& call, const std::vector<float>& w, int rx, int ry, cudaStream_t s) {
  const int W = 160, H = 96;
  std::mt19937 rng(99);
  std::vector<unsigned char> host(size_t(W) * H * 4), got(host.size());
  for (auto& v : host) v = static_cast<unsigned char>(rng() >> 24);
  std::vector<Frame> in;
  in.emplace_back(W, H);
  Frame out(W, H);
  CHECK_CUDA(cudaMemcpy2D(in[0].data, in[0].pitch, host.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  if (call(in[0], out) != NPP_SUCCESS) return -1;
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemcpy2D(got.data(), W * 4, out.data, out.pitch, W * 4, H, cudaMemcpyDeviceToHost));
  const auto want = reference(host, W, H, w, rx, ry);
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
  return worst;
}

std::vector<int> parseList(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::stoi(x));
  return v;
}

std::string jsonString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) o += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return o + "\"";
}

// ---- Per pixel type (--types) ----

// A pitched device frame of width x height pixels of `pixelBytes` each.
struct Buffer2D {
  void* data = nullptr;
  int width = 0, height = 0;
  size_t pitch = 0;
  Buffer2D(int w, int h, size_t pixelBytes) : width(w), height(h) {
    CHECK_CUDA(cudaMallocPitch(&data, &pitch, size_t(w) * pixelBytes, h));
  }
  ~Buffer2D() { cudaFree(data); }
  Buffer2D(const Buffer2D&) = delete;
  Buffer2D& operator=(const Buffer2D&) = delete;
  Buffer2D(Buffer2D&& o) noexcept : data(o.data), width(o.width), height(o.height), pitch(o.pitch) { o.data = nullptr; }
  Buffer2D& operator=(Buffer2D&&) = delete;
};

// One NPP call of a type, the element type cast away: a row or column pass (the kernel in device
// memory, `taps` weights, anchor at the centre), or NPP's fixed Gauss filter; replicate border.
using SepFn = NppStatus (*)(const void* src, int srcStep, NppiSize size, void* dst, int dstStep, const Npp32f* kernel,
                            int taps, int anchor, NppStreamContext ctx);
using GaussFn = NppStatus (*)(const void* src, int srcStep, NppiSize size, void* dst, int dstStep, NppiMaskSize mask,
                              NppStreamContext ctx);
#define NPP_SEP(fn, T)                                                                                        \
  [](const void* s, int ss, NppiSize z, void* d, int ds, const Npp32f* k, int n, int a, NppStreamContext c) { \
    return fn(static_cast<const T*>(s), ss, z, NppiPoint{0, 0}, static_cast<T*>(d), ds, z, k, n, a,           \
              NPP_BORDER_REPLICATE, c);                                                                       \
  }
#define NPP_GAUSS(fn, T)                                                                                            \
  [](const void* s, int ss, NppiSize z, void* d, int ds, NppiMaskSize m, NppStreamContext c) {                      \
    return fn(static_cast<const T*>(s), ss, z, NppiPoint{0, 0}, static_cast<T*>(d), ds, z, m, NPP_BORDER_REPLICATE, \
              c);                                                                                                   \
  }

enum class Kind { U8, U16, F32 };

struct NppType {
  const char* name;      // "16u_C1"
  const char* convlive;  // "u16x1"
  Kind kind;
  int valueBytes, channels;
  const char* rowName;
  const char* colName;
  const char* gaussName;
  SepFn row, col;
  GaussFn gauss;
};

#define NPP_TYPE(T, C, K, B, N, CL, RowFn, ColFn, GaussFnName)                                                    \
  NppType {                                                                                                       \
    N, CL, K, B, C, #RowFn, #ColFn, #GaussFnName, NPP_SEP(RowFn, T), NPP_SEP(ColFn, T), NPP_GAUSS(GaussFnName, T) \
  }

const std::vector<NppType>& nppTypes() {
  static const std::vector<NppType> types{
      NPP_TYPE(Npp8u, 1, Kind::U8, 1, "8u_C1", "u8x1", nppiFilterRowBorder32f_8u_C1R_Ctx,
               nppiFilterColumnBorder32f_8u_C1R_Ctx, nppiFilterGaussBorder_8u_C1R_Ctx),
      NPP_TYPE(Npp8u, 3, Kind::U8, 1, "8u_C3", "u8x3", nppiFilterRowBorder32f_8u_C3R_Ctx,
               nppiFilterColumnBorder32f_8u_C3R_Ctx, nppiFilterGaussBorder_8u_C3R_Ctx),
      NPP_TYPE(Npp8u, 4, Kind::U8, 1, "8u_C4", "u8x4", nppiFilterRowBorder32f_8u_C4R_Ctx,
               nppiFilterColumnBorder32f_8u_C4R_Ctx, nppiFilterGaussBorder_8u_C4R_Ctx),
      NPP_TYPE(Npp16u, 1, Kind::U16, 2, "16u_C1", "u16x1", nppiFilterRowBorder32f_16u_C1R_Ctx,
               nppiFilterColumnBorder32f_16u_C1R_Ctx, nppiFilterGaussBorder_16u_C1R_Ctx),
      NPP_TYPE(Npp16u, 3, Kind::U16, 2, "16u_C3", "u16x3", nppiFilterRowBorder32f_16u_C3R_Ctx,
               nppiFilterColumnBorder32f_16u_C3R_Ctx, nppiFilterGaussBorder_16u_C3R_Ctx),
      NPP_TYPE(Npp16u, 4, Kind::U16, 2, "16u_C4", "u16x4", nppiFilterRowBorder32f_16u_C4R_Ctx,
               nppiFilterColumnBorder32f_16u_C4R_Ctx, nppiFilterGaussBorder_16u_C4R_Ctx),
      NPP_TYPE(Npp32f, 1, Kind::F32, 4, "32f_C1", "f32x1", nppiFilterRowBorder_32f_C1R_Ctx,
               nppiFilterColumnBorder_32f_C1R_Ctx, nppiFilterGaussBorder_32f_C1R_Ctx),
      NPP_TYPE(Npp32f, 3, Kind::F32, 4, "32f_C3", "f32x3", nppiFilterRowBorder_32f_C3R_Ctx,
               nppiFilterColumnBorder_32f_C3R_Ctx, nppiFilterGaussBorder_32f_C3R_Ctx),
      NPP_TYPE(Npp32f, 4, Kind::F32, 4, "32f_C4", "f32x4", nppiFilterRowBorder_32f_C4R_Ctx,
               nppiFilterColumnBorder_32f_C4R_Ctx, nppiFilterGaussBorder_32f_C4R_Ctx),
  };
  return types;
}

const NppType* findNppType(const std::string& name) {
  for (const NppType& t : nppTypes())
    if (name == t.name) return &t;
  return nullptr;
}

// Random values of the kind, `count` of them as bytes: integers over their whole range, floats in 0..1.
std::vector<unsigned char> randomValues(Kind k, size_t count, std::mt19937_64& rng) {
  const size_t bytes = count * (k == Kind::U8 ? 1 : k == Kind::U16 ? 2 : 4);
  std::vector<unsigned char> out(bytes);
  if (k == Kind::F32) {
    for (size_t i = 0; i < count; ++i) {
      const float f = float(rng() >> 40) * (1.0f / 16777216.0f);
      std::memcpy(out.data() + 4 * i, &f, 4);
    }
  } else {
    for (size_t i = 0; i < bytes; i += 8) {
      const unsigned long long v = rng();
      std::memcpy(out.data() + i, &v, std::min<size_t>(8, bytes - i));
    }
  }
  return out;
}

double valueAt(const std::vector<unsigned char>& b, Kind k, size_t i) {
  if (k == Kind::U8) return b[i];
  if (k == Kind::U16) {
    unsigned short v;
    std::memcpy(&v, b.data() + 2 * i, 2);
    return v;
  }
  float f;
  std::memcpy(&f, b.data() + 4 * i, 4);
  return f;
}

// The separable correlation with g (2r+1 weights) of a W x H x C frame, replicate border, in float64;
// integers rounded to the nearest and clamped to their range.
std::vector<double> referenceTyped(const std::vector<double>& in, int W, int H, int C, const std::vector<float>& g,
                                   int r, Kind k) {
  std::vector<double> rows(in.size()), out(in.size());
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int d = -r; d <= r; ++d) s += double(g[d + r]) * in[(size_t(y) * W + std::clamp(x + d, 0, W - 1)) * C + c];
        rows[(size_t(y) * W + x) * C + c] = s;
      }
  const double top = k == Kind::U8 ? 255.0 : 65535.0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (int d = -r; d <= r; ++d)
          s += double(g[d + r]) * rows[(size_t(std::clamp(y + d, 0, H - 1)) * W + x) * C + c];
        out[(size_t(y) * W + x) * C + c] = k == Kind::F32 ? s : std::clamp(std::nearbyint(s), 0.0, top);
      }
  return out;
}

using TypedCall = std::function<NppStatus(const Buffer2D& in, Buffer2D& out, Buffer2D& tmp)>;

// The largest difference between `call` on a random 160x96 frame and referenceTyped; -1 when NPP
// refused the call.
double maxErrorTyped(const NppType& t, const TypedCall& call, const std::vector<float>& g, int r, cudaStream_t s) {
  const int W = 160, H = 96, C = t.channels;
  const size_t pixelBytes = size_t(t.valueBytes) * C, rowBytes = W * pixelBytes;
  std::mt19937_64 rng(99);
  const auto host = randomValues(t.kind, size_t(W) * H * C, rng);
  std::vector<unsigned char> got(host.size());
  Buffer2D in(W, H, pixelBytes), out(W, H, pixelBytes), tmp(W, H, pixelBytes);
  CHECK_CUDA(cudaMemcpy2D(in.data, in.pitch, host.data(), rowBytes, rowBytes, H, cudaMemcpyHostToDevice));
  if (call(in, out, tmp) != NPP_SUCCESS) return -1;
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaMemcpy2D(got.data(), rowBytes, out.data, out.pitch, rowBytes, H, cudaMemcpyDeviceToHost));
  std::vector<double> inValues(size_t(W) * H * C);
  for (size_t i = 0; i < inValues.size(); ++i) inValues[i] = valueAt(host, t.kind, i);
  const auto want = referenceTyped(inValues, W, H, C, g, r, t.kind);
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(valueAt(got, t.kind, i) - want[i]));
  return worst;
}

std::string typedRow(const NppType& t, const std::string& impl, const std::string& function, int r, int W, int H,
                     const Timing& tm, double err, int repeats, const std::string& notes) {
  std::ostringstream o;
  o.precision(9);
  o << "{\"impl\": " << jsonString(impl) << ", \"function\": " << jsonString(function)
    << ", \"type\": " << jsonString(t.name) << ", \"convlive_type\": " << jsonString(t.convlive)
    << ", \"channels\": " << t.channels << ", \"mask\": \"gaussian\", \"radius\": " << r << ", \"width\": " << W
    << ", \"height\": " << H << ", \"batch\": 1";
  if (tm.error.empty()) {
    o << ", \"median_ms\": " << tm.median << ", \"min_ms\": " << tm.min << ", \"p90_ms\": " << tm.p90
      << ", \"mpix_s\": " << double(W) * H / 1e6 / (tm.median * 1e-3) << ", \"repeats\": " << repeats
      << ", \"max_abs_err\": ";
    if (err >= 0)
      o << err;
    else
      o << "null";
    o << ", \"error\": null";
  } else {
    o << ", \"error\": " << jsonString(tm.error);
  }
  o << ", \"notes\": " << jsonString(notes) << "}";
  std::printf("%-7s %-30s r=%-3d %dx%-5d %s\n", t.name, impl.c_str(), r, W, H,
              tm.error.empty() ? (std::to_string(tm.median) + " ms (max err " +
                                  (err >= 0 ? std::to_string(err) : std::string("not checked")) + ")")
                                     .c_str()
                               : tm.error.c_str());
  std::fflush(stdout);
  return o.str();
}

// Times every type in `types` at each size and radius; rows in typedRow's form.
std::vector<std::string> runTyped(const std::vector<const NppType*>& types,
                                  const std::vector<std::pair<int, int>>& sizes, const std::vector<int>& radii,
                                  const NppStreamContext& ctx, cudaStream_t s, int repeats) {
  const NppiMaskSize fixed[] = {NPP_MASK_SIZE_3_X_3,   NPP_MASK_SIZE_5_X_5,   NPP_MASK_SIZE_7_X_7,  NPP_MASK_SIZE_9_X_9,
                                NPP_MASK_SIZE_11_X_11, NPP_MASK_SIZE_13_X_13, NPP_MASK_SIZE_15_X_15};
  std::vector<std::string> rows;
  std::mt19937_64 rng(1234);
  for (const NppType* tp : types) {
    const NppType& t = *tp;
    const size_t pixelBytes = size_t(t.valueBytes) * t.channels;
    for (auto [W, H] : sizes) {
      const size_t rowBytes = size_t(W) * pixelBytes;
      std::vector<Buffer2D> ins;
      for (int f = 0; f < 3; ++f) {
        const auto host = randomValues(t.kind, size_t(W) * H * t.channels, rng);
        ins.emplace_back(W, H, pixelBytes);
        CHECK_CUDA(cudaMemcpy2D(ins.back().data, ins.back().pitch, host.data(), rowBytes, rowBytes, H,
                                cudaMemcpyHostToDevice));
      }
      Buffer2D out(W, H, pixelBytes), tmp(W, H, pixelBytes);
      for (int r : radii) {
        const auto g = gaussian1d(r);  // symmetric: reversed = itself
        float* dk = nullptr;
        CHECK_CUDA(cudaMalloc(&dk, g.size() * sizeof(float)));
        CHECK_CUDA(cudaMemcpy(dk, g.data(), g.size() * sizeof(float), cudaMemcpyHostToDevice));
        const int taps = 2 * r + 1;
        const TypedCall rowCol = [&](const Buffer2D& in, Buffer2D& o, Buffer2D& tm) {
          const NppiSize size{in.width, in.height};
          const NppStatus st = t.row(in.data, int(in.pitch), size, tm.data, int(tm.pitch), dk, taps, r, ctx);
          if (st != NPP_SUCCESS) return st;
          return t.col(tm.data, int(tm.pitch), size, o.data, int(o.pitch), dk, taps, r, ctx);
        };
        const double err = r <= 16 ? maxErrorTyped(t, rowCol, g, r, s) : -1;
        const auto timed = [&](const TypedCall& call) {
          const std::function<NppStatus(const Buffer2D&, Buffer2D&)> bound = [&](const Buffer2D& in, Buffer2D& o) {
            return call(in, o, tmp);
          };
          return timeCall(bound, ins, out, s, repeats);
        };
        rows.push_back(typedRow(t, "npp/FilterRow+ColumnBorder32f", std::string(t.rowName) + " + " + t.colName, r, W, H,
                                timed(rowCol), err, repeats,
                                std::string(t.kind == Kind::F32 ? "float32 intermediate" : "intermediate rounded to ") +
                                    (t.kind == Kind::U8    ? "8 bits"
                                     : t.kind == Kind::U16 ? "16 bits"
                                                           : "") +
                                    ", the gaussian's float32 weights, all channels, replicate border"));
        if (r <= 7) {
          const NppiMaskSize ms = fixed[r - 1];
          const TypedCall gauss = [&](const Buffer2D& in, Buffer2D& o, Buffer2D&) {
            const NppiSize size{in.width, in.height};
            return t.gauss(in.data, int(in.pitch), size, o.data, int(o.pitch), ms, ctx);
          };
          rows.push_back(typedRow(t, "npp/FilterGaussBorder", t.gaussName, r, W, H, timed(gauss), -1, repeats,
                                  "fixed " + std::to_string(taps) + "x" + std::to_string(taps) +
                                      " mask with NPP's own weights (not this sigma; timing only), all channels, "
                                      "replicate border"));
        }
        CHECK_CUDA(cudaFree(dk));
      }
    }
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::string outPath = "npp.json";
  std::vector<std::pair<int, int>> sizes{{1920, 1080}, {3840, 2160}};
  std::vector<int> radii{1, 2, 4, 8, 16, 32}, customRadii{8, 16, 32};
  const int repeats = 30;
  std::vector<const NppType*> types;  // --types: the typed mode
  bool sizesGiven = false;
  if (argc % 2 == 0) {
    std::fprintf(stderr, "npp-peer: %s needs a value\n", argv[argc - 1]);
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--out")
      outPath = v;
    else if (a == "--types") {
      std::stringstream in(v);
      for (std::string x; std::getline(in, x, ',');) {
        if (x.empty()) continue;
        const NppType* t = findNppType(x);
        if (!t) {
          std::fprintf(stderr, "npp-peer: unknown type %s: use", x.c_str());
          for (const NppType& k : nppTypes()) std::fprintf(stderr, " %s", k.name);
          std::fprintf(stderr, "\n");
          return 2;
        }
        types.push_back(t);
      }
    } else if (a == "--radii")
      radii = parseList(v);
    else if (a == "--custom-radii")
      customRadii = parseList(v);
    else if (a == "--sizes") {
      sizesGiven = true;
      sizes.clear();
      std::stringstream in(v);
      for (std::string x; std::getline(in, x, ',');)
        sizes.emplace_back(std::stoi(x), std::stoi(x.substr(x.find('x') + 1)));
    } else {
      std::fprintf(stderr, "npp-peer: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const NppStreamContext ctx = contextFor(s);
  const NppLibraryVersion* ver = nppGetLibVersion();
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));

  std::vector<std::string> rows;
  if (!types.empty()) {
    if (!sizesGiven) sizes = {{3840, 2160}};
    rows = runTyped(types, sizes, radii, ctx, s, repeats);
    sizes.clear();  // the RGBA8 rows below are not timed in the typed mode
    customRadii.clear();
  }
  auto emit = [&](const std::string& impl, const std::string& mask, int r, int W, int H, const Timing& t, double err,
                  const std::string& notes) {
    std::ostringstream o;
    o.precision(9);
    o << "{\"impl\": " << jsonString(impl) << ", \"mask\": " << jsonString(mask) << ", \"radius\": " << r
      << ", \"width\": " << W << ", \"height\": " << H;
    if (t.error.empty())
      o << ", \"median_ms\": " << t.median << ", \"min_ms\": " << t.min << ", \"p90_ms\": " << t.p90
        << ", \"mpix_s\": " << double(W) * H / 1e6 / (t.median * 1e-3) << ", \"repeats\": " << repeats
        << ", \"max_abs_err\": " << err << ", \"error\": null";
    else
      o << ", \"error\": " << jsonString(t.error);
    o << ", \"notes\": " << jsonString(notes) << "}";
    rows.push_back(o.str());
    std::printf("%-34s %-8s r=%-3d %dx%-5d %s\n", impl.c_str(), mask.c_str(), r, W, H,
                t.error.empty() ? (std::to_string(t.median) + " ms (max err " + std::to_string(err) + ")").c_str()
                                : t.error.c_str());
    std::fflush(stdout);
  };

  const NppiMaskSize fixed[] = {NPP_MASK_SIZE_3_X_3,   NPP_MASK_SIZE_5_X_5,   NPP_MASK_SIZE_7_X_7,  NPP_MASK_SIZE_9_X_9,
                                NPP_MASK_SIZE_11_X_11, NPP_MASK_SIZE_13_X_13, NPP_MASK_SIZE_15_X_15};
  for (auto [W, H] : sizes) {
    std::vector<Frame> ins;
    std::mt19937 rng(1234);
    std::vector<unsigned char> host(size_t(W) * H * 4);
    for (int f = 0; f < 3; ++f) {
      for (auto& v : host) v = static_cast<unsigned char>(rng() >> 24);
      ins.emplace_back(W, H);
      CHECK_CUDA(cudaMemcpy2D(ins.back().data, ins.back().pitch, host.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    }
    Frame out(W, H), tmp(W, H);
    for (int r : radii) {
      const auto g = gaussian1d(r);  // symmetric: reversed = itself
      float* dk = nullptr;
      CHECK_CUDA(cudaMalloc(&dk, g.size() * sizeof(float)));
      CHECK_CUDA(cudaMemcpy(dk, g.data(), g.size() * sizeof(float), cudaMemcpyHostToDevice));
      std::vector<float> g2(g.size() * g.size());
      for (size_t i = 0; i < g.size(); ++i)
        for (size_t j = 0; j < g.size(); ++j) g2[i * g.size() + j] = g[i] * g[j];
      const Call rowCol = [&](const Frame& in, Frame& o) {
        const NppiSize size{in.width, in.height};
        NppStatus st =
            nppiFilterRowBorder32f_8u_C4R_Ctx(in.data, int(in.pitch), size, NppiPoint{0, 0}, tmp.data, int(tmp.pitch),
                                              size, dk, 2 * r + 1, r, NPP_BORDER_REPLICATE, ctx);
        if (st != NPP_SUCCESS) return st;
        return nppiFilterColumnBorder32f_8u_C4R_Ctx(tmp.data, int(tmp.pitch), size, NppiPoint{0, 0}, o.data,
                                                    int(o.pitch), size, dk, 2 * r + 1, r, NPP_BORDER_REPLICATE, ctx);
      };
      // The row + column pair needs a temporary as large as the frame: the check frame uses its own.
      {
        Frame smallTmp(160, 96);
        const Call checkRowCol = [&](const Frame& in, Frame& o) {
          const NppiSize size{in.width, in.height};
          NppStatus st =
              nppiFilterRowBorder32f_8u_C4R_Ctx(in.data, int(in.pitch), size, NppiPoint{0, 0}, smallTmp.data,
                                                int(smallTmp.pitch), size, dk, 2 * r + 1, r, NPP_BORDER_REPLICATE, ctx);
          if (st != NPP_SUCCESS) return st;
          return nppiFilterColumnBorder32f_8u_C4R_Ctx(smallTmp.data, int(smallTmp.pitch), size, NppiPoint{0, 0}, o.data,
                                                      int(o.pitch), size, dk, 2 * r + 1, r, NPP_BORDER_REPLICATE, ctx);
        };
        const double err = r <= 16 ? maxError(checkRowCol, g2, r, r, s) : -1;
        emit("npp/FilterRow+ColumnBorder32f", "gaussian", r, W, H, timeCall(rowCol, ins, out, s, repeats), err,
             "nppiFilterRowBorder32f_8u_C4R then nppiFilterColumnBorder32f_8u_C4R (8-bit intermediate), replicate "
             "border, float32 weights");
      }
      if (r <= 7) {
        const NppiMaskSize ms = fixed[r - 1];
        const Call gauss = [&](const Frame& in, Frame& o) {
          const NppiSize size{in.width, in.height};
          return nppiFilterGaussBorder_8u_C4R_Ctx(in.data, int(in.pitch), size, NppiPoint{0, 0}, o.data, int(o.pitch),
                                                  size, ms, NPP_BORDER_REPLICATE, ctx);
        };
        emit("npp/FilterGaussBorder", "gaussian", r, W, H, timeCall(gauss, ins, out, s, repeats), -1,
             "nppiFilterGaussBorder_8u_C4R, fixed " + std::to_string(2 * r + 1) + "x" + std::to_string(2 * r + 1) +
                 " mask with NPP's own weights (not this sigma; timing only), replicate border");
      }
      // NPP's fixed-mask filters of the other built-in kinds, timing only (their weights and output
      // rules are NPP's own): Sobel as its horizontal and vertical filters one after the other (NPP
      // has no 4-channel gradient magnitude, so this is less work than a magnitude: a lower bound
      // on its time), Sharpen (3x3) and Laplace (3x3 at r = 1, 5x5 at r = 2).
      if (r <= 2) {
        const NppiSize full{W, H};
        if (r == 1) {
          const Call sobel = [&](const Frame& in, Frame& o) {
            NppStatus st =
                nppiFilterSobelHorizBorder_8u_C4R_Ctx(in.data, int(in.pitch), full, NppiPoint{0, 0}, tmp.data,
                                                      int(tmp.pitch), full, NPP_BORDER_REPLICATE, ctx);
            if (st != NPP_SUCCESS) return st;
            return nppiFilterSobelVertBorder_8u_C4R_Ctx(in.data, int(in.pitch), full, NppiPoint{0, 0}, o.data,
                                                        int(o.pitch), full, NPP_BORDER_REPLICATE, ctx);
          };
          emit("npp/FilterSobelHoriz+VertBorder", "sobel", r, W, H, timeCall(sobel, ins, out, s, repeats), -1,
               "nppiFilterSobelHorizBorder_8u_C4R then nppiFilterSobelVertBorder_8u_C4R (two 8-bit directional "
               "outputs, no magnitude: NPP has none for 4 channels), replicate border; timing only");
          const Call sharpen = [&](const Frame& in, Frame& o) {
            return nppiFilterSharpenBorder_8u_C4R_Ctx(in.data, int(in.pitch), full, NppiPoint{0, 0}, o.data,
                                                      int(o.pitch), full, NPP_BORDER_REPLICATE, ctx);
          };
          emit("npp/FilterSharpenBorder", "sharpen", r, W, H, timeCall(sharpen, ins, out, s, repeats), -1,
               "nppiFilterSharpenBorder_8u_C4R, NPP's fixed 3x3 sharpening mask, replicate border; timing only");
        }
        const NppiMaskSize laplaceSize = r == 1 ? NPP_MASK_SIZE_3_X_3 : NPP_MASK_SIZE_5_X_5;
        const Call laplace = [&](const Frame& in, Frame& o) {
          return nppiFilterLaplaceBorder_8u_C4R_Ctx(in.data, int(in.pitch), full, NppiPoint{0, 0}, o.data, int(o.pitch),
                                                    full, laplaceSize, NPP_BORDER_REPLICATE, ctx);
        };
        emit("npp/FilterLaplaceBorder", "laplacian", r, W, H, timeCall(laplace, ins, out, s, repeats), -1,
             "nppiFilterLaplaceBorder_8u_C4R, NPP's fixed " + std::to_string(2 * r + 1) + "x" +
                 std::to_string(2 * r + 1) + " Laplace mask, replicate border; timing only");
      }
      CHECK_CUDA(cudaFree(dk));
    }
    for (int r : customRadii) {
      const auto w = custom2d(r, 1234);
      std::vector<float> reversed(w.rbegin(), w.rend());  // NPP convolves: hand it the weights reversed
      float* dk = nullptr;
      CHECK_CUDA(cudaMalloc(&dk, w.size() * sizeof(float)));
      CHECK_CUDA(cudaMemcpy(dk, reversed.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
      const Call twoD = [&](const Frame& in, Frame& o) {
        const NppiSize size{in.width, in.height};
        return nppiFilterBorder32f_8u_C4R_Ctx(in.data, int(in.pitch), size, NppiPoint{0, 0}, o.data, int(o.pitch), size,
                                              dk, NppiSize{2 * r + 1, 2 * r + 1}, NppiPoint{r, r}, NPP_BORDER_REPLICATE,
                                              ctx);
      };
      const double err = r <= 8 ? maxError(twoD, w, r, r, s) : -1;
      emit("npp/FilterBorder32f", "custom", r, W, H, timeCall(twoD, ins, out, s, repeats), err,
           "nppiFilterBorder32f_8u_C4R, non-separable (2r+1)^2 random positive mask normalised to 1, replicate border");
      CHECK_CUDA(cudaFree(dk));
    }
  }
  FILE* f = std::fopen(outPath.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "npp-peer: cannot write %s\n", outPath.c_str());
    return 1;
  }
  std::fprintf(f, "{\"tool\": \"npp-peer\", \"device\": %s, \"versions\": {\"npp\": \"%d.%d.%d\"},\n \"results\": [\n",
               jsonString(prop.name).c_str(), ver->major, ver->minor, ver->build);
  for (size_t i = 0; i < rows.size(); ++i) std::fprintf(f, "  %s%s\n", rows[i].c_str(), i + 1 < rows.size() ? "," : "");
  std::fprintf(f, "]}\n");
  std::fclose(f);
  std::printf("wrote %s (%zu rows)\n", outPath.c_str(), rows.size());
  return 0;
}
