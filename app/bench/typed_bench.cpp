// convlive-bench's typed mode (--types, --batches): for each pixel type (u8, u16, f16, f32 values;
// 1, 3 or 4 channels), frame size and batch, and each gaussian radius: auto's plan, every variant
// that takes such frames with each of its tiles, and a plain copy kernel of the same bytes (16
// bytes a thread), all timed alike: CUDA events around each launch (replayed from a CUDA graph
// where capture works), the median of --repeats after the warm-up, --frames inputs rotated so the
// L2 cache does not flatter. Writes typed.json (every row and the summary) and typed.csv (every
// row) into --out-dir, after each type, so a run cut short keeps what it timed.
#include "typed_bench.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_args.hpp"
#include "bench_tiles.hpp"
#include "bench_timing.hpp"
#include "convlive/atomic_file.hpp"
#include "convlive/check.hpp"
#include "convlive/half.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"
#include "convlive/variants.hpp"
#include "reference_kernels.hpp"
#include "typed_report.hpp"

namespace convlive::bench {
namespace {

using nlohmann::json;

struct TypedOptions {
  std::vector<TypeSpec> types;
  std::vector<std::pair<int, int>> sizes{{3840, 2160}};
  std::vector<BatchSpec> batches;
  std::vector<int> radii{1, 2, 4, 8, 16, 32};
  std::vector<int> customRadii;    // random full 2D masks (positive, summing to 1), beside the gaussians
  std::vector<std::string> masks;  // other built-in kinds timed at --radii, beside the gaussian (sobel, laplacian)
  int repeats = 30, warmup = 5, frames = 3;
  int warmupMs = 30;                  // each case; the first cases have brought the clocks up
  std::vector<std::string> variants;  // empty: auto's candidates (Tuner::candidates())
  std::vector<Tile> tiles;            // empty: each variant's every tile; else those of them alone
  std::string outDir = ".";
  unsigned long long seed = 0;  // 0: a fresh one (std::random_device), written into the JSON
};

// The printed radius's prefix: none for the gaussian, c for a random 2D mask, else the mask's name.
std::string maskLabel(const std::string& mask) {
  return mask == "gaussian" ? "" : mask == "custom2d" ? "c" : mask + " ";
}

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "convlive-bench: " << why << "\n"
            << "usage: convlive-bench --types u8x1,u8x4,f32x4 [--sizes 3840x2160] [--batches 16x1920x1080,64x256x256]\n"
               "                      [--radii 1,2,4,8,16,32] [--custom-radii 8,32] [--masks sobel,laplacian]\n"
               "                      [--variants a,b] [--repeats 30]\n"
               "                      [--tiles 64x48,64x192] [--warmup 5]"
               " [--warmup-ms 30] [--frames 3] [--seed N] [--out-dir DIR]\n"
               "  types: u8, u16, f16, f32 values x 1, 3 or 4 channels (default with --batches alone: "
            << defaultTypes() << ")\n";
  std::exit(2);
}

int toInt(const std::string& s, const char* what) {
  if (const auto v = parseInt(s, 1)) return *v;
  usage(std::string(what) + " '" + s + "' is not a positive integer");
}

// Each item of a comma-separated list through `parse`; the first it refuses ends the program with
// "<what> '<item>' <why>".
template <class Parse>
auto listOf(const std::string& list, Parse parse, const char* what, const char* why) {
  std::vector<typename std::invoke_result_t<Parse, const std::string&>::value_type> out;
  for (const auto& s : splitList(list)) {
    const auto v = parse(s);
    if (!v) usage(std::string(what) + " '" + s + "' " + why);
    out.push_back(*v);
  }
  return out;
}

TypedOptions parse(int argc, char** argv) {
  TypedOptions o;
  bool typesGiven = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--types") {
      typesGiven = true;
      o.types =
          listOf(next(), parseType, "type", "is not one of u8, u16, f16, f32 x 1, 3 or 4 channels (e.g. u8x4, f32x1)");
    } else if (a == "--batches") {
      o.batches = listOf(next(), parseBatch, "batch", "is not NxWxH (e.g. 16x1920x1080: 16 frames of 1920x1080)");
    } else if (a == "--sizes") {
      o.sizes = listOf(
          next(),
          [](const std::string& s) -> std::optional<std::pair<int, int>> {
            const auto t = Tile::parse(s);
            if (!t || t->w < 1 || t->h < 1) return std::nullopt;
            return std::pair{t->w, t->h};
          },
          "size", "is not WxH");
    } else if (a == "--radii") {
      o.radii.clear();
      for (const auto& s : splitList(next())) o.radii.push_back(toInt(s, "radius"));
    } else if (a == "--custom-radii") {
      for (const auto& s : splitList(next())) {
        o.customRadii.push_back(toInt(s, "custom radius"));
        if (o.customRadii.back() > Mask::kMaxRadius)
          usage("custom radius '" + s + "' is past " + std::to_string(Mask::kMaxRadius) + ", the largest mask radius");
      }
    } else if (a == "--masks") {
      o.masks = splitList(next());
      if (const std::string why = unknownMaskKind(o.masks); !why.empty()) usage(why);
    } else if (a == "--repeats") {
      o.repeats = toInt(next(), "--repeats");
    } else if (a == "--warmup") {
      o.warmup = toInt(next(), "--warmup");
    } else if (a == "--warmup-ms") {
      o.warmupMs = toInt(next(), "--warmup-ms");
    } else if (a == "--frames") {
      o.frames = toInt(next(), "--frames");
    } else if (a == "--seed") {
      o.seed = static_cast<unsigned long long>(toInt(next(), "--seed"));
    } else if (a == "--variants") {
      o.variants = splitList(next());
      for (const auto& v : o.variants) {
        const Variant* found = findVariant(v);
        if (!found) usage("unknown variant '" + v + "': use " + variantNames());
        if (!found->onGpu) usage("variant '" + v + "' runs on the CPU: the typed mode times GPU variants");
      }
    } else if (a == "--tiles") {
      o.tiles = listOf(
          next(), [](const std::string& s) { return Tile::parse(s); }, "tile",
          "is not WxH (a variant's tile: convlive list variants names them)");
    } else if (a == "--out-dir") {
      o.outDir = next();
    } else {
      usage("unknown option '" + a + "' (the typed mode takes the options below)");
    }
  }
  if (!typesGiven) {
    for (const auto& s : splitList(defaultTypes())) o.types.push_back(*parseType(s));
  }
  if (o.types.empty()) usage("--types names no type");
  if (o.sizes.empty() && o.batches.empty()) usage("--sizes and --batches name no frames");
  if (o.radii.empty()) usage("--radii names no radius");
  if (o.repeats < 20) usage("--repeats must be at least 20 for a meaningful median");
  if (o.frames < 3) usage("--frames must be at least 3 (inputs rotate so the L2 cache does not flatter)");
  // Each tile named must be a tile of a variant timed (a variant offering none of them is timed by auto only).
  std::vector<const Variant*> timed;
  for (const auto& name : o.variants.empty() ? Tuner::candidates() : o.variants)
    if (const Variant* v = findVariant(name)) timed.push_back(v);
  if (const std::string why = bench::tilesWhyNot(o.tiles, timed); !why.empty()) usage(why);
  if (const std::string why = prepareFolder(o.outDir); !why.empty())
    usage("--out-dir: " + why + "; name a folder you can write in (it is made when missing)");
  if (o.seed == 0) o.seed = (static_cast<unsigned long long>(std::random_device{}()) << 32) | std::random_device{}();
  return o;
}

PixelType pixelTypeOf(const TypeSpec& t) {
  if (t.type == "u8") return PixelType::U8;
  if (t.type == "u16") return PixelType::U16;
  if (t.type == "f16") return PixelType::F16;
  return PixelType::F32;
}

struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// Random values of the type: integers over their whole range, floats in 0..1 (f16: one of 4096
// evenly spaced values from 0 to 1, each rounded to half).
// A full 2D mask of radius r: positive random weights summing to 1 (as the RGBA8 mode's custom masks).
Filter randomPositiveFilter(int r, SplitMix64& rng) {
  const int n = 2 * r + 1;
  std::vector<float> w(std::size_t(n) * n);
  double sum = 0;
  for (float& v : w) sum += v = float(double(rng.next() >> 11) * 0x1.0p-53);
  for (float& v : w) v = float(v / sum);
  Filter f;
  f.name = "custom2d";
  f.mask = Mask(r, std::move(w));
  return f;
}

void fillRandom(std::vector<std::uint8_t>& buf, PixelType t, SplitMix64& rng) {
  if (t == PixelType::U8 || t == PixelType::U16) {
    std::size_t i = 0;
    for (; i + 8 <= buf.size(); i += 8) {
      const std::uint64_t v = rng.next();
      std::memcpy(buf.data() + i, &v, 8);
    }
    if (i < buf.size()) {
      const std::uint64_t v = rng.next();
      std::memcpy(buf.data() + i, &v, buf.size() - i);
    }
  } else if (t == PixelType::F16) {
    static const std::vector<std::uint16_t> levels = [] {
      std::vector<std::uint16_t> l(4096);
      for (int k = 0; k < 4096; ++k) l[k] = halfFromDouble(k / 4095.0);
      return l;
    }();
    const std::size_t n = buf.size() / 2;
    for (std::size_t k = 0; k < n; k += 4) {
      const std::uint64_t v = rng.next();
      for (std::size_t j = 0; j < 4 && k + j < n; ++j) {
        const std::uint16_t h = levels[(v >> (12 * j)) & 4095];
        std::memcpy(buf.data() + 2 * (k + j), &h, 2);
      }
    }
  } else {
    const std::size_t n = buf.size() / 4;
    for (std::size_t k = 0; k < n; k += 2) {
      const std::uint64_t v = rng.next();
      for (std::size_t j = 0; j < 2 && k + j < n; ++j) {
        const float f = float((v >> (32 * j)) & 0xffffff) * (1.0f / 16777216.0f);
        std::memcpy(buf.data() + 4 * (k + j), &f, 4);
      }
    }
  }
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string csvOf(const json& rows) {
  std::ostringstream csv;
  csv << "type,channels,width,height,batch,radius,mask,variant,tile,chosen,median_ms,min_ms,p90_ms,ratio_to_copy,gbps,"
         "mpix_s,timing,error\n";
  const auto num = [](const json& r, const char* k) {
    return r.contains(k) && r[k].is_number() ? std::to_string(r[k].get<double>()) : std::string();
  };
  const auto text = [](const json& r, const char* k) {
    return r.contains(k) && r[k].is_string() ? r[k].get<std::string>() : std::string();
  };
  for (const auto& r : rows) {
    std::string err = text(r, "error");
    std::replace(err.begin(), err.end(), '"', '\'');
    csv << text(r, "type") << "," << r["channels"] << "," << r["width"] << "," << r["height"] << "," << r["batch"]
        << "," << (r["radius"].is_null() ? std::string() : r["radius"].dump()) << "," << text(r, "mask") << ","
        << text(r, "variant") << "," << text(r, "tile") << "," << text(r, "chosen") << "," << num(r, "median_ms") << ","
        << num(r, "min_ms") << "," << num(r, "p90_ms") << "," << num(r, "ratio_to_copy") << "," << num(r, "gbps") << ","
        << num(r, "mpix_s") << "," << text(r, "timing") << ",\"" << err << "\"\n";
  }
  return csv.str();
}

bool writeResults(const TypedOptions& o, const json& head, const json& rows) {
  json doc = head;
  doc["results"] = rows;
  doc["summary"] = summarizeTyped(rows);
  for (const auto& [name, text] : {std::pair{"/typed.json", doc.dump(1) + "\n"}, std::pair{"/typed.csv", csvOf(rows)}})
    if (!writeFileAtomically(o.outDir + name, text)) {
      std::cerr << "convlive-bench: could not write " << o.outDir << name
                << ": check that the disk has room and the folder is still there\n";
      return false;
    }
  return true;
}

// The variants the typed mode times for frames `desc`: --variants, else auto's candidates; those
// on the GPU that take the frames' type and channels (the u8x4-only ones take u8x4, batches frame
// by frame).
std::vector<const Variant*> variantsFor(const TypedOptions& o, const ImageDesc& desc) {
  std::vector<const Variant*> out;
  for (const auto& name : o.variants.empty() ? Tuner::candidates() : o.variants) {
    const Variant* v = findVariant(name);
    if (!v || !v->onGpu) continue;
    if (!v->takesAnyImage() && !desc.isRgba8()) continue;
    out.push_back(v);
  }
  return out;
}

void printSummary(const json& rows) {
  const json summary = summarizeTyped(rows);
  std::printf(
      "\nsummary (best = fastest of auto and every variant and tile; ratio = best / copy, target <= %.1f "
      "for r = 1..%d; share = MPix/s against the single frame's)\n",
      kCopyRatioTarget, kCopyRatioMaxRadius);
  std::printf("%-6s %-15s %3s %9s %9s %-22s %9s %-24s %7s %7s\n", "type", "frames", "r", "copy ms", "auto ms",
              "auto choice", "best ms", "best", "ratio", "share");
  for (const auto& s : summary) {
    const std::string type = s["type"].get<std::string>() + "x" + std::to_string(s["channels"].get<int>());
    const std::string frames = std::to_string(s["batch"].get<int>()) + "x" + std::to_string(s["width"].get<int>()) +
                               "x" + std::to_string(s["height"].get<int>());
    const auto num = [&](const char* k, const char* fmt) {
      char b[32] = "-";
      if (s.contains(k) && s[k].is_number()) std::snprintf(b, sizeof b, fmt, s[k].get<double>());
      return std::string(b);
    };
    std::string ratio = num("ratio_to_copy", "%.2fx");
    if (s["meets_ratio_target"].is_boolean()) ratio += s["meets_ratio_target"].get<bool>() ? "" : "!";
    std::string share = "-";
    if (s.contains("share_of_single") && s["share_of_single"].is_number()) {
      char b[32];
      std::snprintf(b, sizeof b, "%.0f%%", 100.0 * s["share_of_single"].get<double>());
      share = b;
    }
    if (s.contains("meets_share_target") && s["meets_share_target"].is_boolean())
      share += s["meets_share_target"].get<bool>() ? "" : "!";
    const std::string best = s["best_variant"].get<std::string>() + " " + s["best_tile"].get<std::string>();
    std::printf("%-6s %-15s %3d %9s %9s %-22s %9s %-24s %7s %7s\n", type.c_str(), frames.c_str(),
                s["radius"].get<int>(), num("copy_ms", "%.4f").c_str(), num("auto_ms", "%.4f").c_str(),
                s["auto_choice"].is_string() ? s["auto_choice"].get<std::string>().c_str() : "-",
                num("best_ms", "%.4f").c_str(), best.c_str(), ratio.c_str(), share.c_str());
  }
  std::printf("(! = misses the target)\n");
}

}  // namespace

bool wantsTypedMode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--types") == 0 || std::strcmp(argv[i], "--batches") == 0) return true;
  return false;
}

std::string unknownMaskKind(const std::vector<std::string>& kinds) {
  const auto& known = filterKinds();
  for (const auto& m : kinds)
    if (m == "custom" || std::find(known.begin(), known.end(), m) == known.end())
      return "--masks: '" + m + "' is not a built-in mask (sharpen, emboss, laplacian, sobel, ...)";
  return {};
}

std::vector<std::pair<std::string, Filter>> builtInFilters(const std::vector<std::string>& kinds,
                                                           const std::vector<int>& radii) {
  std::vector<std::pair<std::string, Filter>> filters;
  for (const std::string& kind : kinds)
    for (int r : radii) try {
        FilterSpec spec;
        spec.radius = r;
        filters.emplace_back(kind, makeFilter(kind, spec));
      } catch (const std::invalid_argument&) {  // a radius the kind does not have (scharr past 1)
      }
  return filters;
}

int typedMain(int argc, char** argv) {
  const TypedOptions o = parse(argc, argv);
  const DeviceInfo& dev = deviceInfo();
  if (!dev.available) {
    std::cerr << "convlive-bench: " << dev.reason << ": the benchmark needs a CUDA device\n";
    return 1;
  }
  json head{
      {"tool", "convlive-bench --types"}, {"date", today()}, {"device", dev.name}, {"sm_count", dev.multiprocessors}};
  json settings{{"repeats", o.repeats},
                {"warmup", o.warmup},
                {"warmup_ms", o.warmupMs},
                {"frames", o.frames},
                {"seed", o.seed},
                {"border", "clamp"},
                {"alpha", "4 channels: the 4th is alpha and passes through"},
                {"timing", "CUDA events around each launch, in a CUDA graph where capture works; median"},
                {"copy", "a kernel copying the same bytes, 16 bytes a thread"}};
  settings["types"] = json::array();
  for (const auto& t : o.types) settings["types"].push_back(t.str());
  settings["sizes"] = json::array();
  for (const auto& [w, h] : o.sizes) settings["sizes"].push_back(std::to_string(w) + "x" + std::to_string(h));
  settings["batches"] = json::array();
  for (const auto& b : o.batches) settings["batches"].push_back(b.str());
  head["settings"] = settings;

  std::vector<BatchSpec> shapes;
  for (const auto& [w, h] : o.sizes) shapes.push_back({1, w, h});
  for (const auto& b : o.batches) shapes.push_back(b);

  json rows = json::array();
  SplitMix64 rng{o.seed};
  try {
    Stream stream;
    const cudaStream_t s = stream.get();
    std::printf("device: %s, %d SMs; seed %llu\n", dev.name.c_str(), dev.multiprocessors, o.seed);
    std::printf("%-6s %-15s %3s %-12s %-8s %-14s %10s %8s %8s %9s\n", "type", "frames", "r", "variant", "tile",
                "chosen", "median ms", "x copy", "GB/s", "MPix/s");
    for (const TypeSpec& type : o.types) {
      for (const BatchSpec& shape : shapes) {
        ImageDesc desc;
        desc.width = shape.width;
        desc.height = shape.height;
        desc.type = pixelTypeOf(type);
        desc.channels = type.channels;
        desc.alpha = type.channels == 4;
        desc.batch = shape.batch;
        const json base{
            {"type", type.type},    {"channels", type.channels}, {"width", shape.width}, {"height", shape.height},
            {"batch", shape.batch}, {"radius", nullptr},         {"variant", nullptr},   {"tile", ""},
            {"error", nullptr}};
        const std::string frames = shape.str();
        if (Problem why = imageProblem(desc)) {
          json row = base;
          row["variant"] = "copy";
          row["error"] = why.text();
          rows.push_back(row);
          std::printf("%-6s %-15s: %s\n", type.str().c_str(), frames.c_str(), why.text().c_str());
          continue;
        }
        const std::size_t bytes = desc.span();
        const double pixels = double(shape.batch) * shape.width * shape.height;
        std::vector<DeviceBuffer> ins;
        DeviceBuffer out;
        try {
          std::vector<std::uint8_t> host(bytes);
          for (int f = 0; f < o.frames; ++f) {
            fillRandom(host, desc.type, rng);
            ins.emplace_back(bytes);
            CL_CUDA(cudaMemcpyAsync(ins.back().get(), host.data(), bytes, cudaMemcpyHostToDevice, s));
            CL_CUDA(cudaStreamSynchronize(s));
          }
          out = DeviceBuffer(bytes);
          CL_CUDA(cudaMemsetAsync(out.get(), 0, bytes, s));
          CL_CUDA(cudaStreamSynchronize(s));
        } catch (const std::exception& e) {
          json row = base;
          row["variant"] = "copy";
          row["error"] = std::string("could not make the frames: ") + e.what();
          rows.push_back(row);
          (void)cudaGetLastError();
          std::printf("%-6s %-15s: %s\n", type.str().c_str(), frames.c_str(), e.what());
          continue;
        }
        const auto input = [&](int i) { return ins[static_cast<std::size_t>(i) % ins.size()].get(); };
        // Times `launch` into `row` (median, min, p90, GB/s, MPix/s, the ratio to the copy).
        double copyMs = 0;
        const auto timeInto = [&](json& row, const auto& launch) {
          try {
            bool graphed = false;
            const Stats st = timeLaunches(o, s, launch, &graphed, true);
            row.update({{"median_ms", st.median},
                        {"min_ms", st.min},
                        {"p90_ms", st.p90},
                        {"bytes", 2.0 * double(bytes)},
                        {"gbps", 2.0 * double(bytes) / (st.median * 1e-3) / 1e9},
                        {"mpix_s", pixels / 1e6 / (st.median * 1e-3)},
                        {"ratio_to_copy", copyMs > 0 ? json(st.median / copyMs) : json(nullptr)},
                        {"timing", graphed ? "graph" : "stream"}});
          } catch (const std::exception& e) {
            row["error"] = e.what();
            (void)cudaGetLastError();
          }
          const std::string r =
              row["radius"].is_null() ? "-" : maskLabel(row.value("mask", "gaussian")) + row["radius"].dump();
          if (row["error"].is_null()) {
            char ratio[32] = "-";
            if (row["ratio_to_copy"].is_number())
              std::snprintf(ratio, sizeof ratio, "%.2fx", row["ratio_to_copy"].get<double>());
            std::printf("%-6s %-15s %3s %-12s %-8s %-14s %10.4f %8s %8.0f %9.0f\n", type.str().c_str(), frames.c_str(),
                        r.c_str(), row["variant"].get<std::string>().c_str(), row["tile"].get<std::string>().c_str(),
                        row.value("chosen", "").c_str(), row["median_ms"].get<double>(), ratio,
                        row["gbps"].get<double>(), row["mpix_s"].get<double>());
          } else
            std::printf("%-6s %-15s %3s %-12s %-8s %s\n", type.str().c_str(), frames.c_str(), r.c_str(),
                        row["variant"].get<std::string>().c_str(), row["tile"].get<std::string>().c_str(),
                        row["error"].get<std::string>().c_str());
          std::fflush(stdout);
          rows.push_back(row);
        };
        {
          json row = base;
          row["variant"] = "copy";
          row["tile"] = "16B/thread";
          timeInto(row, [&](int i) { launchCopyBytes(input(i), out.get(), bytes, s); });
          if (rows.back().contains("median_ms")) copyMs = rows.back()["median_ms"].get<double>();
        }
        const std::vector<const Variant*> named = variantsFor(o, desc);
        // The gaussian at each radius, the other masks asked for at each, then a random full 2D mask at
        // each custom radius.
        std::vector<std::pair<std::string, Filter>> filters;
        for (int r : o.radii) {
          FilterSpec spec;
          spec.radius = r;
          filters.emplace_back("gaussian", makeFilter("gaussian", spec));
        }
        for (auto& kf : builtInFilters(o.masks, o.radii)) filters.push_back(std::move(kf));
        for (int r : o.customRadii) filters.emplace_back("custom2d", randomPositiveFilter(r, rng));
        for (const auto& [maskName, filter] : filters) {
          const int r = filter.mask.radius();
          FilterParams p;
          p.filter = filter;
          // auto's plan (measured once on this GPU and cached), then each variant at each tile.
          struct Case {
            std::string name;
            Tile tile;
          };
          std::vector<Case> cases{{"auto", Tile{}}};
          for (const Variant* v : named)
            for (const Tile& t : v->runnableTiles())
              if (bench::timesTile(o.tiles, t)) cases.push_back({v->name, t});
          for (const Case& c : cases) {
            json row = base;
            row["radius"] = r;
            row["mask"] = maskName;
            row["variant"] = c.name;
            row["tile"] = c.tile == Tile{} ? "" : c.tile.str();
            FilterParams q = p;
            q.tile = c.tile;
            Problem why;
            Plan plan;
            try {
              plan = Plan::make(q, c.name, desc, {.memory = Memory::Device}, why);
            } catch (const std::exception& e) {
              why = Problem{};
              row["error"] = e.what();
              (void)cudaGetLastError();
            }
            if (!plan) {
              if (row["error"].is_null()) row["error"] = why ? why.text() : std::string("no plan");
              const std::string rr = maskLabel(maskName) + std::to_string(r);
              std::printf("%-6s %-15s %3s %-12s %-8s %s\n", type.str().c_str(), frames.c_str(), rr.c_str(),
                          c.name.c_str(), row["tile"].get<std::string>().c_str(),
                          row["error"].get<std::string>().c_str());
              rows.push_back(row);
              continue;
            }
            if (c.name == "auto") {
              row["tile"] = plan.tile() == Tile{} ? "" : plan.tile().str();
              std::string chosen = plan.variant().name;  // appended: "a" + std::string trips GCC 12's -Wrestrict
              if (plan.tile() != Tile{}) chosen.append(" ").append(plan.tile().str());
              row["chosen"] = chosen;
            }
            timeInto(row, [&](int i) { plan.run(input(i), out.get(), s); });
          }
        }
      }
      if (!writeResults(o, head, rows)) return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "convlive-bench: " << e.what() << "\n";
    (void)writeResults(o, head, rows);
    return 1;
  }
  printSummary(rows);
  std::printf("wrote %s/typed.json and typed.csv\n", o.outDir.c_str());
  return 0;
}

}  // namespace convlive::bench
