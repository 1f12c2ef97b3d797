#include "convlive/tuner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "convlive/atomic_file.hpp"
#include "convlive/check.hpp"
#include "convlive/precision.hpp"
#include "convlive/resources.hpp"
#include "kernels/launch.hpp"
#include "kernels/stream_any_rank.hpp"
#include "kernels/stream_typed.hpp"
#include "kernels/tensor_stream_typed.hpp"

namespace convlive {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* combineName(Combine c) {
  switch (c) {
    case Combine::Abs:
      return "abs";
    case Combine::Magnitude:
      return "magnitude";
    case Combine::Identity:
    default:
      return "identity";
  }
}
std::optional<Combine> parseCombine(const std::string& s) {
  for (Combine c : {Combine::Identity, Combine::Abs, Combine::Magnitude})
    if (s == combineName(c)) return c;
  return std::nullopt;
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << v;
  return o.str();
}

// Median GPU time of `runs` launches of v (after one untimed launch), or a negative value when the
// first timed launch alone is over `cutoffMs` (not worth timing further).
double timeVariant(const Variant& v, const FilterParams& p, const ImageDesc& d, const DeviceBuffer& in,
                   DeviceBuffer& out, Workspace& ws, const Stream& s, double cutoffMs) {
  v.runFrames(p, d, in.get(), out.get(), ws, s.get());  // warm-up: module load, textures, attributes
  std::vector<float> ms;
  Event a, b;
  for (int i = 0; i < 7; ++i) {
    a.record(s.get());
    v.runFrames(p, d, in.get(), out.get(), ws, s.get());
    b.record(s.get());
    b.synchronize();
    ms.push_back(b.elapsedSince(a));
    if (i == 0 && ms[0] > cutoffMs) return -1;
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

std::string TuneKey::str() const {
  std::string s = std::to_string(width) + "x" + std::to_string(height) + " " + kind + " r=" + std::to_string(radius) +
                  (separable ? " separable" : " 2D");
  if (terms > 0) {  // appended a piece at a time: "" + std::string&& trips GCC 12's -Wrestrict
    s += ' ';
    s += std::to_string(terms);
    s += terms == 1 ? " term" : " terms";
  }
  if (combine != Combine::Identity) s += std::string(" ") + combineName(combine);
  if (halfSplit) s += " fp16-split";
  if (singleSums) s += " fp32-sums";
  if (mirrored) s += " mirror-symmetric";
  if (integerSums) s += " integer-sums";
  if (!image.empty()) s += " " + image;
  return s;
}

TuneKey TuneKey::of(const FilterParams& p, const ImageDesc& image) {
  TuneKey k = of(p, image.width, image.height);
  // u8x4 rows or frames not 4 bytes apart: only the variants that take any image can run them.
  const bool unaligned = image.isRgba8() && (image.rowPitch() % 4 || image.frameStride() % 4);
  const bool otherOut = writesOtherType(p, image);
  if (!image.isRgba8() || image.batch != 1 || (image.channels == 4 && !image.alpha) || unaligned || otherOut) {
    k.image = image.typeName();
    if (image.channels == 4 && !image.alpha) k.image += "-padded";
    if (unaligned) k.image += "-unaligned";
    if (otherOut) k.image += std::string(" to ") + pixelTypeName(*p.outType);
    if (image.batch != 1) k.image += " batch " + std::to_string(image.batch);
  }
  return k;
}

TuneKey TuneKey::of(const FilterParams& p, int width, int height) {
  TuneKey k;
  k.width = width;
  k.height = height;
  k.kind = p.filter.name.empty() ? "custom" : p.filter.name;
  k.separable = p.filter.mask.separable();
  k.radius = p.filter.mask.radius();
  if (!k.separable && k.radius <= kernels::kTensorStreamMaxRadius && p.filter.combine != Combine::Magnitude)
    if (const auto& lowRank = p.filter.mask.lowRankForBytes();
        lowRank && lowRank->rank() <= kernels::kTensorStreamMaxTerms)
      k.terms = lowRank->rank();
  k.combine = p.filter.combine;
  k.halfSplit = planHalfWeights(p.filter.mask, p.filter.combine).split();
  // Two masks of one kind and radius (gaussians of two sigmas) can take stream's fp16 sums or not,
  // which changes its time: timed apart.
  const Variant* stream = findVariant("stream");
  const bool streamTakes = k.separable && k.combine != Combine::Magnitude && stream && k.radius <= stream->maxRadius;
  k.singleSums = streamTakes && !planHalfSums(p.filter.mask).fits;
  k.mirrored = !k.separable && k.kind == "custom" && k.radius >= 1 && k.radius <= kernels::kStreamAnyRankRadius &&
               kernels::streamMaskMirrorSymmetric(p.filter.mask.weights().data(), k.radius);
  // Likewise a custom mask stream sums in integers (weights, or a magnitude's factors' ratios, that are integers).
  if (k.kind == "custom") {
    const Mask& m = p.filter.mask;
    k.integerSums =
        k.combine == Combine::Magnitude
            ? k.separable && kernels::streamMagnitudeIntegerFactors(m.row().data(), m.col().data(), k.radius)
            : !k.separable && kernels::streamAnyRankIntegerWeights(m.weights().data(), k.radius);
  }
  return k;
}

const std::vector<std::string>& Tuner::candidates() {
  static const std::vector<std::string> names{"stream",   "tensorstream", "sweep",      "tensorsep", "fused",
                                              "tensor2d", "separable",    "tiled-coop", "fft"};
  return names;
}

Tuner::Tuner(std::string path, std::string gpu) : path_(std::move(path)), gpu_(std::move(gpu)) { load(); }

std::string Tuner::defaultPath(const std::string& gpu) {
  if (const char* p = std::getenv("CONVLIVE_TUNE_CACHE"); p && *p) return p;
  std::string name;
  for (char c : gpu) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  fs::path dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    dir = fs::path(h) / ".cache";
  else
    dir = fs::temp_directory_path();
  return (dir / "convlive" / ("tune-" + (name.empty() ? std::string("no-gpu") : name) + ".json")).string();
}

Tuner& Tuner::shared() {
  // One tuner per kind of GPU, for the calling thread's current device: a process that runs plans
  // on two GPUs measures and caches each one's winners in its own file. Two devices of one name
  // share a tuner (one file, one writer: same GPU, same winners).
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<Tuner>> tuners;
  const std::string gpu = deviceInfo().name;
  std::lock_guard lock(m);
  std::unique_ptr<Tuner>& t = tuners[gpu];
  if (!t) t = std::make_unique<Tuner>(defaultPath(gpu), gpu);
  return *t;
}

void Tuner::load() {
  std::ifstream in(path_);
  if (!in) return;  // no cache yet
  try {
    const json doc = json::parse(in);
    if (doc.value("version", 0) != kVersion) {
      why_ = path_ + " is of another version: ignored, rewritten on the next measurement";
      return;
    }
    if (doc.value("gpu", std::string()) != gpu_) {
      why_ = path_ + " was measured on another GPU (" + doc.value("gpu", std::string("?")) + "): ignored";
      return;
    }
    for (const auto& e : doc.at("entries")) {
      TuneKey k;
      k.width = e.at("width");
      k.height = e.at("height");
      k.kind = e.at("kind");
      k.separable = e.at("separable");
      k.terms = e.value("terms", 0);
      k.radius = e.at("radius");
      k.combine = parseCombine(e.at("combine")).value_or(Combine::Identity);
      k.halfSplit = e.value("fp16_split", false);
      k.singleSums = e.value("fp32_sums", false);
      k.mirrored = e.value("mirror_symmetric", false);
      k.integerSums = e.value("integer_sums", false);
      k.image = e.value("image", std::string());
      TuneEntry t;
      t.variant = e.at("variant");
      t.tile = Tile::parse(e.at("tile").get<std::string>()).value_or(Tile{});
      t.ms = e.at("ms");
      t.runnerUp = e.value("runner_up", std::string());
      t.runnerUpTile = Tile::parse(e.value("runner_up_tile", std::string())).value_or(Tile{});
      t.runnerUpMs = e.value("runner_up_ms", 0.0);
      if (!findVariant(t.variant)) continue;  // a variant this build does not have
      entries_[k.str()] = {k, t};
    }
  } catch (const std::exception& e) {
    entries_.clear();
    why_ = path_ + " does not parse (" + e.what() + "): ignored, rewritten on the next measurement";
  }
}

bool Tuner::save() {
  json entries = json::array();
  for (const auto& [name, kv] : entries_) {
    const auto& [k, t] = kv;
    entries.push_back({{"width", k.width},
                       {"height", k.height},
                       {"kind", k.kind},
                       {"separable", k.separable},
                       {"terms", k.terms},
                       {"radius", k.radius},
                       {"combine", combineName(k.combine)},
                       {"fp16_split", k.halfSplit},
                       {"fp32_sums", k.singleSums},
                       {"mirror_symmetric", k.mirrored},
                       {"integer_sums", k.integerSums},
                       {"image", k.image},
                       {"variant", t.variant},
                       {"tile", t.tile.str()},
                       {"ms", t.ms},
                       {"runner_up", t.runnerUp},
                       {"runner_up_tile", t.runnerUpTile.str()},
                       {"runner_up_ms", t.runnerUpMs}});
  }
  const json doc{{"version", kVersion}, {"gpu", gpu_}, {"entries", entries}};
  if (!writeFileAtomically(path_, doc.dump(1) + "\n")) {
    why_ = "cannot write the tuning cache " + path_ + ": kept in memory only";
    return false;
  }
  return true;
}

std::optional<TuneEntry> Tuner::lookup(const TuneKey& key) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key.str());
  if (it == entries_.end()) return std::nullopt;
  return it->second.second;
}

bool Tuner::store(const TuneKey& key, const TuneEntry& entry) {
  std::lock_guard lock(mutex_);
  entries_[key.str()] = {key, entry};
  return save();
}

std::size_t Tuner::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::string Tuner::why() const {
  std::lock_guard lock(mutex_);
  return why_;
}

AutoChoice Tuner::choose(const FilterParams& p, int width, int height) {
  return choose(p, ImageDesc::rgba8(width, height));
}

namespace {

// A scratch batch of `d` on the device: random values of its type (floats in 0..1).
DeviceBuffer scratchFrames(const ImageDesc& d) {
  std::vector<unsigned char> host(d.span());
  std::mt19937 rng(7);
  switch (d.type) {
    case PixelType::U8:
    case PixelType::U16:
      for (auto& b : host) b = static_cast<unsigned char>(rng() >> 24);
      break;
    case PixelType::F16:
      for (std::size_t i = 0; i + 1 < host.size(); i += 2) {
        const std::uint16_t h = std::uint16_t(0x3800u + (rng() >> 22));  // 0.5..1
        std::memcpy(&host[i], &h, 2);
      }
      break;
    case PixelType::F32:
      for (std::size_t i = 0; i + 3 < host.size(); i += 4) {
        const float f = float(rng() >> 8) * 0x1p-24f;
        std::memcpy(&host[i], &f, 4);
      }
      break;
  }
  DeviceBuffer b(host.size());
  CL_CUDA(cudaMemcpy(b.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  return b;
}

}  // namespace

AutoChoice Tuner::choose(const FilterParams& p, const ImageDesc& image) {
  AutoChoice c;
  const int width = image.width, height = image.height;
  const TuneKey key = TuneKey::of(p, image);
  const auto describe = [&](const TuneEntry& e, const char* how) {
    std::string s = std::string(how) + " " + e.variant + " " + e.tile.str() + " " + fixed(e.ms, 4) + " ms";
    if (!e.runnerUp.empty())
      s += ", runner-up " + e.runnerUp + " " + e.runnerUpTile.str() + " " + fixed(e.runnerUpMs, 4) + " ms (" +
           fixed(e.runnerUpMs / e.ms, 2) + "x)";
    return s + " at " + std::to_string(width) + "x" + std::to_string(height);
  };
  if (!deviceInfo().available) {
    c.variant = &cpuChoice(p, image);
    c.why = deviceInfo().reason + ": the " + c.variant->name + " variant";
    return c;
  }
  if (auto e = lookup(key)) {
    FilterParams q = p;
    q.tile = e->tile;
    const Variant* v = findVariant(e->variant);
    if (v && !v->whyNot(q, image)) {
      c = {v, e->tile, describe(*e, "cached:"), true, true, *e};
      return c;
    }
  }
  // Time every candidate and tile that can run, on a scratch frame of this size.
  ImageDesc packed = image;
  packed.pitch = packed.batchStride = 0;
  DeviceBuffer in = scratchFrames(packed), out(outputDesc(packed, p.outType.value_or(packed.type)).span());
  Stream s;
  struct Timed {
    const Variant* v;
    Tile tile;
    double ms;
  };
  std::vector<Timed> timed;
  double best = 1e30;
  for (const std::string& name : candidates()) {
    const Variant& v = *findVariant(name);
    Workspace ws;
    for (const Tile& t : v.runnableTiles()) {
      FilterParams q = p;
      q.tile = t;
      if (v.whyNot(q, image) || v.whyNot(q, packed)) continue;
      const double ms = timeVariant(v, q, packed, in, out, ws, s, 4 * best);
      if (ms < 0) break;  // far behind: the other tiles of this variant are not worth timing
      timed.push_back({&v, t, ms});
      best = std::min(best, ms);
    }
  }
  if (timed.empty()) {
    c.variant = &cpuChoice(p, image);
    c.why = "no GPU variant can run " + key.str() + ": the " + c.variant->name + " variant";
    return c;
  }
  std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.ms < b.ms; });
  TuneEntry e;
  e.variant = timed[0].v->name;
  e.tile = timed[0].tile;
  e.ms = timed[0].ms;
  // The runner-up is the best of another variant (a second tile of the winner says less).
  for (const Timed& t : timed)
    if (t.v != timed[0].v) {
      e.runnerUp = t.v->name;
      e.runnerUpTile = t.tile;
      e.runnerUpMs = t.ms;
      break;
    }
  store(key, e);
  c = {timed[0].v, e.tile, describe(e, "measured:"), true, false, e};
  return c;
}

AutoChoice chooseAuto(const FilterParams& p, int width, int height) {
  return chooseAuto(p, ImageDesc::rgba8(width, height));
}

AutoChoice chooseAuto(const FilterParams& p, const ImageDesc& image) {
  try {
    return Tuner::shared().choose(p, image);
  } catch (const std::exception& e) {
    AutoChoice c;
    c.variant = &fixedOrderChoice(p, image);
    c.why = std::string("could not time the variants (") + e.what() + "): the order measured on the H200";
    return c;
  }
}

namespace {
// The variants to try for single RGBA8 frames of this size, fastest first (below).
std::vector<const char*> sizeOrder(const FilterParams& p, int width, int height);
// The largest radius f32 grey frames take stream first for (sweep from the next: fixedOrderChoice).
constexpr int kF32GreyStreamMaxRadius = 5;
// The smallest radius u16 and f16 grey frames take tensorstream first for (stream below it), and
// their 4-channel frames (stream below it: to its largest radius, 4).
constexpr int kU16GreyTensorMinRadius = 4;
constexpr int kU16FourTensorMinRadius = 5;
// The smallest radius f32 grey frames take tensorstream first for (stream below it).
constexpr int kF32GreyTensorMinRadius = 6;
}  // namespace

const Variant& fixedOrderChoice(const FilterParams& p, const ImageDesc& image) {
  if (image.isRgba8() && !writesOtherType(p, image)) {
    // A batch: tensorstream's RGBA8 kernel takes it in one launch, ahead of stream's typed kernel at
    // every radius it takes (H200, 16 1080p frames r = 1: 0.100 ms against 0.167; 64 256x256 frames:
    // 0.022 against 0.052); what it refuses goes by the frame's order.
    if (image.batch > 1)
      if (const Variant* v = findVariant("tensorstream"); v && !v->whyNot(p, image)) return *v;
    // The frame's order, each variant asked about this image: stream's masks of any rank and
    // gradient magnitudes run on single frames only, and a pitch the size alone does not show (rows
    // not a whole number of 4-byte pixels apart) may be refused.
    for (const char* n : sizeOrder(p, image.width, image.height))
      if (const Variant* v = findVariant(n); v && !v->whyNot(p, image)) return *v;
    return cpuChoice(p, image);
  }
  // Other frames, as measured on the H200 at 4K and 16 1080p frames: stream's typed kernel first to
  // r = 1 (u8x1 0.018 ms against tensorstream's 0.024, u8x3 0.040 against 0.057), and to r = 2 where
  // it sums in fp16 (below); tensorstream on u8x1 and u8x3 from r = 2 to 32 (u8x1 r=8 0.023 ms against sweep's 0.136,
  // u8x3 0.054 against 0.44); stream to r = 4 on the other types (1.3-2.7x the copy against sweep's 4-12x; u16 and f16
  // grey frames: tensorstream from r = 4, below) and to r = 5 on f32
  // grey frames (since sweep's row jobs read the raw copies it is ahead from r = 6: 4K 0.94x stream's
  // time at r = 6, 0.83x at r = 8; 16 1080p 0.98x, 0.91x; 48 512x512 1.02x, 0.91x; H200,
  // 2026-12-01); batches of small frames may take sweep sooner, which auto measures. u16 grey frames
  // take tensorstream from r = 4 to 16 (its products in fp16 high + low parts: 4K r = 4 0.030 ms
  // against stream's 0.032, r = 8 0.030 against 0.056, r = 16 0.041 against sweep's 0.077; 16 1080p
  // r = 4 0.086 against 0.095; at r = 3 stream's 0.026 and 0.079 against 0.030 and 0.087, but 64
  // 256x256 frames 0.019 against 0.023, which auto's timing finds; H200, 2026-12-02); f16 grey frames
  // too (4K r = 4 0.027 ms against stream's 0.029, r = 8 0.027 against 0.051, r = 16 0.039 against
  // sweep's 0.080; 16 1080p r = 4 0.076 against 0.084; at r = 3 stream's 0.024 against 0.027, 64
  // 256x256 frames 0.0176 against 0.021); u16 and f16 frames of 4 channels from r = 5 to 16, past
  // stream's reach (4K r = 6 0.135-0.140 ms against sweep's 0.155-0.161, r = 16 0.170-0.180 against
  // 0.254-0.259; at r = 4 stream's 0.097-0.109 against 0.139-0.145); f32 grey frames from r = 6 to
  // 16 (4K r = 6 0.0388 ms against sweep's 0.0391, r = 8 0.0391 against 0.0418, r = 16 0.0586
  // against 0.0619; 48 512x512 frames r = 8 0.0604 against 0.0704; at r = 5 stream's 0.0355 against
  // 0.0391, and 0.0548 against 0.0604 on 48 512x512, but 64 256x256 frames 0.0240 against 0.0285,
  // which auto's timing finds; H200, 2026-12-02). Then sweep, and
  // fft for what sweep refuses. A 2D mask from r = 8 takes fft before sweep (4K u8x1, u16x1, f32x1:
  // 0.27-0.28 ms at any radius against sweep's 0.40-0.42 at r = 8 and 3.6-3.7 at r = 32; 64 256x256
  // frames 0.15-0.18 against 0.24-0.25 and 2.4); at r = 4 sweep is faster (0.19-0.21 against
  // 0.27-0.28).
  const int r = p.filter.mask.radius();
  const bool twoD = !p.filter.mask.separable();
  std::vector<const char*> order;
  // u8 grey and RGB into u8 at r = 2 whose fp16 sums keep 1 LSB (gaussian, box): stream's fp16 sums
  // first too (H200, 2026-12-03: 4K u8x1 0.0138 ms against tensorstream's 0.0173, u8x3 0.0283 against
  // 0.0416; 16 1080p 0.0315 and 0.0879 against 0.0456 and 0.1243; 64 256x256 0.0110 and 0.0230
  // against 0.0118 and 0.0313).
  kernels::TypedStreamLaunch typed{};
  typed.image = image;
  typed.floatOut = writesOtherType(p, image);
  typed.halfSums = r == 2 && planHalfSums(p.filter.mask).fits;
  const bool halfSumsAt2 = r == 2 && kernels::typedStreamHalfLaneValues(typed, r) != 0;
  if (r <= 1 || halfSumsAt2) order.push_back("stream");
  const bool splits = kernels::tensorStreamTypedSplitsFactors(image.type);  // u16, f16, f32
  const int tensorFrom = !splits                        ? 0
                         : image.type == PixelType::F32 ? kF32GreyTensorMinRadius
                         : image.channels == 1          ? kU16GreyTensorMinRadius
                                                        : kU16FourTensorMinRadius;
  if (r >= tensorFrom) order.push_back("tensorstream");
  const bool f32Grey = image.type == PixelType::F32 && image.channels == 1;
  if (r <= (f32Grey ? kF32GreyStreamMaxRadius
                    : kernels::typedStreamMaxRadius(image.type, image.channels, writesOtherType(p, image))))
    order.push_back("stream");
  if (twoD && r >= 8) order.push_back("fft");
  order.push_back("sweep");
  order.push_back("fft");
  for (const char* n : order)
    if (const Variant* v = findVariant(n); v && !v->whyNot(p, image)) return *v;
  return cpuChoice(p, image);
}

const Variant& fixedOrderChoice(const FilterParams& p, int width, int height) {
  for (const char* n : sizeOrder(p, width, height))
    if (const Variant& v = *findVariant(n); !v.whyNot(p, width, height)) return v;
  return cpuChoice(p, width, height);
}

namespace {
std::vector<const char*> sizeOrder(const FilterParams& p, int width, int height) {
  // Fastest first, as the benchmark measured on the H200 (4K and 1080p, RGBA8): stream leads for
  // separable masks at r = 1 (0.028 ms at 4K against tensorstream's 0.032), for 3x3 masks of any rank
  // (4K 0.031-0.032 ms against tensorstream's 0.036-0.047 and tensor2d's 0.061), and at r = 2 where its fp16
  // sums hold 1 LSB or the frame is past 1080p (0.030-0.0325 against 0.032-0.036); tensorstream from
  // there to r = 32 (0.033 at 4K r = 3..8, 0.069 at r = 32 against fused's 0.58); tensor2d for 2D
  // masks up to r = 24 (r = 21 at 1080p and below), fft past that (0.626 ms at 4K whatever the
  // radius, against tensor2d's 0.529 at r = 24 and 0.869 at r = 28) and for every mask past r = 32.
  // Masks of low rank (sharpen, emboss, laplacian: up to 4 separable terms) take tensorstream first
  // at every radius to 32 (4K: sharpen r=8 0.049 against tensor2d's 0.133, r=32 0.123 against fft's
  // 0.624); those whose terms it refuses fall through to the 2D order. A gradient magnitude (sobel,
  // scharr) of a 3x3 or 5x5 mask on stream (4K 3x3 0.032 ms against tensorstream's 0.054 and 0.067,
  // 5x5 0.049 against 0.067; 1080p 5x5 0.018 against 0.023), then tensorstream to r = 16 (4K sobel
  // r=3..8 0.064 ms against separable's 0.23-0.30), separable past it. 5x5 masks that tensorstream refuses (of rank 5)
  // take stream next (4K 0.054 ms against tensor2d's 0.067; 1080p 0.021 against 0.025). 5x5 masks
  // mirror-symmetric across both axes of rank 3 or more (the laplacian) take stream first, its pairs of
  // pixels and of rows (4K 0.045 ms against tensorstream's 0.053; 1080p 0.018 against 0.020); those of
  // rank 2 keep tensorstream (sharpen, whose centre it adds at the store: 0.037 against stream's 0.044).
  // 5x5 masks whose weights are integers over a divisor (emboss), summed in integers on stream, take it
  // first too (4K emboss r = 2 0.047 ms against tensorstream's 0.052; 1080p 0.018 against 0.021; a batch of 16
  // 1080p frames 0.190 against 0.174, where a tuned auto takes tensorstream).
  const int r = p.filter.mask.radius();
  const bool large = double(width) * height > 1920.0 * 1088;
  std::vector<const char*> order;
  const bool magnitude = p.filter.combine == Combine::Magnitude;
  const Mask& mask = p.filter.mask;
  const auto symmetricOfRank3 = [&] {
    if (mask.separable() || !kernels::streamMaskMirrorSymmetric(mask.weights().data(), r)) return false;
    const auto& lowRank = mask.lowRankForBytes();
    return !lowRank || lowRank->rank() >= 3;
  };
  const auto integerWeights = [&] {
    return !mask.separable() && !magnitude && kernels::streamAnyRankIntegerWeights(mask.weights().data(), r);
  };
  if (r <= 1 || (r == 2 && mask.separable() && (large || magnitude || planHalfSums(mask).fits)) ||
      (r == 2 && (symmetricOfRank3() || integerWeights())))
    order.push_back("stream");
  order.push_back("tensorstream");
  if (r <= 4) order.push_back("stream");
  const bool twoD = !p.filter.mask.separable();
  const bool fftFirst =
      r > kernels::kMax2DRadius || (twoD && (r >= 25 || (r >= 22 && double(width) * height <= 1920.0 * 1088)));
  if (fftFirst) order.push_back("fft");
  // sweep last: the one 2D-mask variant whose grid takes frames of any height (the others' rows of
  // blocks stop at 65535).
  for (const char* n : {"fused", "tensor2d", "separable", "tiled-coop", "constant", "fft", "sweep"}) order.push_back(n);
  return order;
}
}  // namespace

}  // namespace convlive
