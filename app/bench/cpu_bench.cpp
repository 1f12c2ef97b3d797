// convlive-cpu-bench: the CPU variants (cpu-simd, the cpu reference) on RGBA8 frames, wall-clock
// timed: the median of --repeats calls after --warmup, per size x mask x border, all four channels
// filtered (alpha too, as OpenCV does); --masks adds other kinds (sharpen:8) and random masks of a
// given rank (rank3:8). With --frames-dir it also writes the frames, the masks and cpu-simd's
// outputs there, so that app/bench/cpu_peers.py times OpenCV on the same frames with the same
// weights and checks its outputs against ours. --batches times batches of RGBA8 frames in one call
// (16x256x256: 16 frames of 256x256) beside the single frames, for each mask and border.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench_args.hpp"
#include "convlive/atomic_file.hpp"
#include "convlive/cpu_simd.hpp"
#include "convlive/plan.hpp"
#include "convlive/variants.hpp"
#include "random_masks.hpp"
#include "typed_report.hpp"

using namespace convlive;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::vector<std::pair<int, int>> sizes{{1280, 720}, {1920, 1080}};
  std::vector<bench::BatchSpec> batches;  // RGBA8 batches, one call each
  std::vector<int> radii{1, 2, 4, 8};     // gaussian (separable)
  std::vector<int> customRadii{2};        // random non-separable masks
  // More masks as KIND:R (a filter kind makeFilter knows, or rankK: a random custom mask of rank K)
  std::vector<std::pair<std::string, int>> masks;
  std::vector<Border> borders{Border::Clamp, Border::Mirror};
  std::vector<std::string> variants{"cpu-simd", "cpu"};
  int repeats = 50, warmup = 5, referenceRepeats = 5;
  std::string out = "convlive-cpu.json";
  std::string framesDir;  // empty: write no frames
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr
      << "convlive-cpu-bench: " << why << "\n"
      << "usage: convlive-cpu-bench [--sizes 1280x720,1920x1080] [--batches 1024x32x32] [--radii 1,2,4,8]\n"
         "                          [--custom-radii 2]\n"
         "                          [--masks sharpen:8,emboss:8,rank3:8] [--borders clamp,mirror]\n"
         "                          [--variants cpu-simd,cpu] [--repeats 50] [--warmup 5] [--reference-repeats 5]\n"
         "                          [--out FILE.json] [--frames-dir DIR]\n";
  std::exit(2);
}

int toInt(const std::string& s, const char* what) {
  if (const auto v = bench::parseInt(s, 0)) return *v;
  usage(std::string(what) + " '" + s + "' is not a whole number");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--sizes") {
      o.sizes.clear();
      for (const auto& s : bench::splitList(v)) {
        const auto t = Tile::parse(s);
        if (!t) usage("size '" + s + "' is not WxH");
        o.sizes.emplace_back(t->w, t->h);
      }
    } else if (a == "--batches") {
      o.batches.clear();
      for (const auto& s : bench::splitList(v)) {
        const auto b = bench::parseBatch(s);
        if (!b) usage("batch '" + s + "' is not NxWxH (e.g. 1024x32x32: 1024 frames of 32x32)");
        o.batches.push_back(*b);
      }
    } else if (a == "--radii" || a == "--custom-radii") {
      auto& list = a == "--radii" ? o.radii : o.customRadii;
      list.clear();
      for (const auto& s : bench::splitList(v)) list.push_back(toInt(s, "radius"));
    } else if (a == "--masks") {
      o.masks.clear();
      for (const auto& s : bench::splitList(v)) {
        const auto colon = s.find(':');
        if (colon == std::string::npos) usage("mask '" + s + "' is not KIND:RADIUS (for example sharpen:8)");
        o.masks.emplace_back(s.substr(0, colon), toInt(s.substr(colon + 1), "radius"));
      }
    } else if (a == "--borders") {
      o.borders.clear();
      for (const auto& s : bench::splitList(v)) {
        const auto b = parseBorder(s);
        if (!b) usage("border '" + s + "' is not one of zero, clamp, mirror, wrap");
        o.borders.push_back(*b);
      }
    } else if (a == "--variants") {
      o.variants = bench::splitList(v);
      for (const auto& n : o.variants)
        if (!findVariant(n) || findVariant(n)->onGpu) usage("'" + n + "' is not a CPU variant");
    } else if (a == "--repeats") {
      o.repeats = std::max(1, toInt(v, "--repeats"));
    } else if (a == "--warmup") {
      o.warmup = toInt(v, "--warmup");
    } else if (a == "--reference-repeats") {
      o.referenceRepeats = std::max(1, toInt(v, "--reference-repeats"));
    } else if (a == "--out") {
      o.out = v;
    } else if (a == "--frames-dir") {
      o.framesDir = v;
    } else {
      usage("unknown option " + a);
    }
  }
  // The folders written to, checked (and made) before anything is timed.
  const std::string outFolder = fs::path(o.out).parent_path().string();
  if (const std::string why = bench::prepareFolder(outFolder.empty() ? "." : outFolder); !why.empty())
    usage("--out: " + why + "; name a file in a folder you can write in");
  if (!o.framesDir.empty())
    if (const std::string why = bench::prepareFolder(o.framesDir); !why.empty())
      usage("--frames-dir: " + why + "; name a folder you can write in (it is made when missing)");
  return o;
}

// A non-separable random mask: positive weights, normalised (the 2D case the peers time too).
Filter customFilter(int radius) {
  std::mt19937 rng(static_cast<unsigned>(1000 + radius));
  std::uniform_real_distribution<float> d(0.f, 1.f);
  std::ostringstream w;
  const int n = 2 * radius + 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) w << d(rng) << (j + 1 < n ? "," : (i + 1 < n ? ";" : ""));
  return makeFilter("custom", {.radius = radius, .weights = w.str(), .normalize = true});
}

// A random custom mask of the given rank: the sum of `rank` outer products of random factors,
// normalised (a difference of blurs or an oriented derivative is of this kind).
Filter rankFilter(int rank, int radius) {
  std::mt19937 rng(static_cast<unsigned>(2000 + 97 * rank + radius));
  Filter f;
  f.name = "custom";
  f.mask = bench::randomRankMask(radius, rank, rng);
  return f;
}

// A --masks entry's filter, or exits naming the problem.
Filter maskFilter(const std::string& kind, int radius) {
  if (kind.rfind("rank", 0) == 0) {
    if (const auto k = bench::parseInt(kind.substr(4), 1)) return rankFilter(*k, radius);
    usage("mask '" + kind + "' is not rankK (K a whole number from 1)");
  }
  try {
    return makeFilter(kind, {.radius = radius});
  } catch (const std::invalid_argument& e) {
    usage(std::string("--masks: ") + e.what());
  }
}

struct Timing {
  double median, min, p90;
  int runs;
};

// The median, least and 90th percentile of `runs` calls of runOnce after `warmup`.
template <class Run>
Timing timeRuns(Run runOnce, int warmup, int runs) {
  for (int i = 0; i < warmup; ++i) runOnce();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    runOnce();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms[std::min(ms.size() - 1, ms.size() * 9 / 10)], runs};
}

// Whole or not at all (a temporary beside it, renamed); throws, naming the file, when it cannot.
void writeWhole(const fs::path& path, const std::string& bytes) {
  if (!writeFileAtomically(path.string(), bytes))
    throw std::runtime_error("could not write " + path.string() +
                             ": check that the disk has room and the folder is still there");
}
void writeBytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  writeWhole(path, std::string(bytes.begin(), bytes.end()));
}

std::string sizeName(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

int run(const Options& o) {
  std::vector<std::pair<std::string, Filter>> filters;
  for (int r : o.radii) filters.emplace_back("gaussian", makeFilter("gaussian", {.radius = r}));
  for (int r : o.customRadii) filters.emplace_back("custom2d", customFilter(r));
  for (const auto& [kind, r] : o.masks) filters.emplace_back(kind, maskFilter(kind, r));

  json results = json::array(), masks = json::array();
  for (const auto& [kind, f] : filters)
    masks.push_back({{"kind", kind},
                     {"radius", f.mask.radius()},
                     {"sigma", kind == "gaussian" ? defaultGaussianSigma(f.mask.radius()) : 0.f},
                     {"weights", f.mask.weights()},
                     {"row", f.mask.row()},
                     {"col", f.mask.col()}});
  // Each size a frame, then each batch (its frames in one call); a row each of mask, border and variant.
  std::vector<bench::BatchSpec> shapes;
  for (const auto& [w, h] : o.sizes) shapes.push_back({1, w, h});
  const std::size_t singles = shapes.size();
  shapes.insert(shapes.end(), o.batches.begin(), o.batches.end());
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const bench::BatchSpec& bs = shapes[si];
    const bool single = si < singles;
    const int w = bs.width, h = bs.height;
    ImageDesc d = ImageDesc::rgba8(w, h);
    d.batch = bs.batch;
    std::vector<std::uint8_t> in(d.span()), out(d.span());
    std::mt19937 rng(static_cast<unsigned>(w * 31 + h + (single ? 0 : bs.batch)));
    for (auto& b : in) b = static_cast<std::uint8_t>(rng() >> 24);
    const std::string shape = single ? sizeName(w, h) : bs.str();
    if (single && !o.framesDir.empty()) writeBytes(fs::path(o.framesDir) / ("frame-" + shape + ".rgba"), in);
    const double pixels = double(w) * h * bs.batch;
    for (const auto& [kind, f] : filters)
      for (Border b : o.borders)
        for (const std::string& name : o.variants) {
          FilterParams p;
          p.filter = f;
          p.border = b;
          p.filterAlpha = true;  // all four channels, as OpenCV filters them
          Problem why;
          Plan plan = Plan::make(p, name, d, {.memory = Memory::Host, .cpuFallback = false}, why);
          if (!plan) {
            std::cerr << name << " cannot run " << kind << " r=" << f.mask.radius() << " on " << shape << ": "
                      << why.text() << "\n";
            continue;
          }
          const bool reference = name == "cpu";
          const Timing t = timeRuns([&] { plan.run(in.data(), out.data()); }, reference ? 1 : o.warmup,
                                    reference ? o.referenceRepeats : o.repeats);
          const std::string key = shape + " " + kind + " r=" + std::to_string(f.mask.radius()) + " " + borderName(b);
          if (single && !o.framesDir.empty() && name == "cpu-simd") {
            std::string file = "out-" + key + ".rgba";
            std::replace(file.begin(), file.end(), ' ', '_');
            writeBytes(fs::path(o.framesDir) / file, out);
          }
          std::printf("%-34s %-9s median %8.3f ms  min %8.3f  p90 %8.3f  (%d runs)  %7.1f MPix/s\n", key.c_str(),
                      name.c_str(), t.median, t.min, t.p90, t.runs, pixels / t.median / 1e3);
          std::fflush(stdout);
          json row{{"size", sizeName(w, h)},
                   {"width", w},
                   {"height", h},
                   {"kind", kind},
                   {"radius", f.mask.radius()},
                   {"border", borderName(b)},
                   {"variant", name},
                   {"median_ms", t.median},
                   {"min_ms", t.min},
                   {"p90_ms", t.p90},
                   {"runs", t.runs},
                   {"mpix_s", pixels / t.median / 1e3}};
          if (!single) row["batch"] = bs.batch;
          results.push_back(std::move(row));
        }
  }
  const json doc{{"tool", "convlive-cpu-bench"},
                 {"simd_target", cpuSimdTarget()},
                 {"hardware_threads", std::thread::hardware_concurrency()},
                 {"repeats", o.repeats},
                 {"warmup", o.warmup},
                 {"reference_repeats", o.referenceRepeats},
                 {"results", results}};
  writeWhole(o.out, doc.dump(2) + "\n");
  if (!o.framesDir.empty()) writeWhole(fs::path(o.framesDir) / "masks.json", masks.dump() + "\n");
  std::cerr << "wrote " << o.out << " (kernels: " << cpuSimdTarget() << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "convlive-cpu-bench: " << e.what() << "\n";
    return 1;
  }
}
