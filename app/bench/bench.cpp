// convlive-bench: every GPU variant x tile x radius on RGBA8 frames, timed with CUDA events.
// Median of --repeats launches after --warmup, rotating --frames inputs so the L2 cache does not
// flatter; MPix/s, effective GB/s (one read and one write of the frame), % of the device-to-device
// copy bandwidth measured in the same run, and the floor (the larger of the memory time at that
// bandwidth and the FP32 FMA time at the device's peak rate). Each case also has its time a
// frame back to back (b2b: a stream of launches with no events between them), and each size two
// reference launches: an empty kernel and a plain kernel copy of the frame.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <type_traits>

#include "bench_args.hpp"
#include "bench_tiles.hpp"
#include "bench_timing.hpp"
#include "convlive/atomic_file.hpp"
#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "reference_kernels.hpp"
#include "typed_bench.hpp"

using namespace convlive;
using nlohmann::json;

namespace {

struct Options {
  std::vector<std::pair<int, int>> sizes{{1920, 1080}, {3840, 2160}};
  std::vector<int> radii{1, 2, 4, 8, 16, 32};
  std::vector<int> customRadii{8};  // non-separable random masks, timed on the 2D variants
  std::vector<std::string> masks;   // other built-in kinds timed at --radii (sharpen, emboss, laplacian)
  int repeats = 30, warmup = 5, frames = 3;
  int warmupMs = 100;                 // keep the GPU busy this long before timing, so its clocks have boosted
  std::vector<std::string> variants;  // empty: all GPU variants
  std::vector<Tile> tiles;            // empty: each variant's every tile; else those of them alone
  std::string outDir = ".";
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "convlive-bench: " << why << "\n"
            << "usage: convlive-bench [--sizes 1920x1080,3840x2160] [--radii 1,2,4,8,16,32] [--custom-radii 8,16,32]\n"
               "                      [--masks sharpen,emboss,laplacian] [--repeats 30] [--warmup 5] [--warmup-ms 100] "
               "[--frames 3] [--variants a,b] [--tiles 64x192,32x16] "
               "[--out-dir DIR] [--quick] [--device N]\n";
  std::exit(2);
}

int toInt(const std::string& s, const char* what) {
  if (const auto v = bench::parseInt(s, 1)) return *v;
  usage(std::string(what) + " '" + s + "' is not a positive integer");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes") {
      o.sizes.clear();
      for (const auto& s : bench::splitList(next())) {
        const auto t = Tile::parse(s);
        if (!t) usage("size '" + s + "' is not WxH");
        o.sizes.emplace_back(t->w, t->h);
      }
    } else if (a == "--radii") {
      o.radii.clear();
      for (const auto& s : bench::splitList(next())) o.radii.push_back(toInt(s, "radius"));
    } else if (a == "--custom-radii" || a == "--custom-radius") {
      o.customRadii.clear();
      for (const auto& s : bench::splitList(next())) o.customRadii.push_back(toInt(s, "custom radius"));
    } else if (a == "--masks") {
      o.masks = bench::splitList(next());
      if (const std::string why = bench::unknownMaskKind(o.masks); !why.empty()) usage(why);
    } else if (a == "--repeats") {
      o.repeats = toInt(next(), "--repeats");
    } else if (a == "--warmup") {
      o.warmup = toInt(next(), "--warmup");
    } else if (a == "--warmup-ms") {
      o.warmupMs = toInt(next(), "--warmup-ms");
    } else if (a == "--frames") {
      o.frames = toInt(next(), "--frames");
    } else if (a == "--variants") {
      o.variants = bench::splitList(next());
      for (const auto& v : o.variants)
        if (!findVariant(v)) usage("unknown variant '" + v + "': use " + variantNames());
    } else if (a == "--tiles") {
      for (const auto& s : bench::splitList(next())) {
        const auto t = Tile::parse(s);
        if (!t) usage("tile '" + s + "' is not WxH (a variant's tile: convlive list variants names them)");
        o.tiles.push_back(*t);
      }
    } else if (a == "--out-dir") {
      o.outDir = next();
    } else if (a == "--quick") {
      o.sizes = {{640, 480}};
      o.radii = {1, 4};
      o.repeats = 20;
    } else {
      usage("unknown option '" + a + "'");
    }
  }
  if (o.repeats < 20) usage("--repeats must be at least 20 for a meaningful median");
  if (o.frames < 3) usage("--frames must be at least 3 (inputs rotate so the L2 cache does not flatter)");
  std::vector<const Variant*> timed;
  for (const Variant& v : variants())
    if (v.onGpu && (o.variants.empty() || std::find(o.variants.begin(), o.variants.end(), v.name) != o.variants.end()))
      timed.push_back(&v);
  if (const std::string why = bench::tilesWhyNot(o.tiles, timed); !why.empty()) usage(why);
  if (const std::string why = bench::prepareFolder(o.outDir); !why.empty())
    usage("--out-dir: " + why + "; name a folder you can write in (it is made when missing)");
  return o;
}

using bench::Stats;
using bench::summarize;
using bench::timeLaunches;

// Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written. Timed on the
// stream: inside a graph the copy becomes a memcpy node, seen to run at two thirds of the rate.
double copyBandwidth(const Options& o, cudaStream_t s) {
  const std::size_t bytes = std::size_t(1) << 30;
  DeviceBuffer a(bytes), b(bytes);
  CL_CUDA(cudaMemsetAsync(a.get(), 1, bytes, s));
  const Stats st = timeLaunches(
      o, s, [&](int) { CL_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s)); }, nullptr,
      false);
  return 2.0 * bytes / (st.median * 1e-3) / 1e9;
}

// Peak FP32 rate (FMA = 2 flops) from the SM count, FP32 lanes per SM and the clock.
double fp32PeakFlops(const DeviceInfo& d) {
  const int lanes = (d.major == 7 || (d.major == 8 && d.minor == 0)) ? 64 : 128;
  return 2.0 * d.multiprocessors * lanes * (d.clockKHz * 1e3);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

// --device N: every later CUDA call on device N (its index as `convlive list devices` shows it).
// Exits 2 with the reason for a bad or missing device. `args` keeps the other arguments.
void takeDevice(std::vector<std::string>& args) {
  std::string error;
  const int device = bench::takeDeviceOption(args, error);
  if (!error.empty()) usage(error);
  if (device < 0) return;
  if (device >= deviceCount()) {
    std::cerr << "convlive-bench: --device " << device << ": this machine has " << describeDevices() << "\n";
    std::exit(2);
  }
  CL_CUDA(cudaSetDevice(device));
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  takeDevice(args);
  std::vector<char*> pointers;
  for (std::string& a : args) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  argc = int(args.size());
  argv = pointers.data();
  // --types, --batches: frames of every pixel type and batches against a copy (typed_bench.cpp).
  if (bench::wantsTypedMode(argc, argv)) return bench::typedMain(argc, argv);
  const Options o = parse(argc, argv);
  const DeviceInfo& dev = deviceInfo();
  if (!dev.available) {
    std::cerr << "convlive-bench: " << dev.reason << ": the benchmark needs a CUDA device\n";
    return 1;
  }
  try {
    Stream stream;
    const double copyGBs = copyBandwidth(o, stream.get());
    const double peak = fp32PeakFlops(dev);
    std::printf("device: %s, %d SMs, copy bandwidth %.0f GB/s (read+write), FP32 peak %.1f TFLOP/s\n", dev.name.c_str(),
                dev.multiprocessors, copyGBs, peak / 1e12);
    json results = json::array(), frameCopies = json::array();
    // The fixed cost of one timed launch: an empty kernel between the same events, in a graph.
    bool emptyGraphed = false;
    double emptyBackToBack = 0;
    const Stats empty = timeLaunches(
        o, stream.get(), [&](int) { bench::launchEmptyKernel(stream.get()); }, &emptyGraphed, true, nullptr,
        &emptyBackToBack);
    std::printf("empty kernel: %.4f ms %s (a timed launch's fixed cost), %.4f ms a launch back to back\n", empty.median,
                emptyGraphed ? "in a graph" : "on the stream", emptyBackToBack);
    std::mt19937 rng(1234);
    std::printf("%-11s %-6s %-8s %3s %10s %10s %9s %8s %7s %9s %10s\n", "variant", "tile", "mask", "r", "size",
                "median ms", "MPix/s", "GB/s", "%copy", "floor ms", "b2b ms");
    for (const auto& [w, h] : o.sizes) {
      std::vector<DeviceImage> ins;
      for (int f = 0; f < o.frames; ++f) {
        HostImage host(w, h);
        for (auto& p : host.pixels()) p = static_cast<std::uint8_t>(rng() >> 24);
        ins.emplace_back(w, h);
        ins.back().upload(host.view(), stream.get());
      }
      DeviceImage out(w, h);
      // The frame copied device to device (one read and one write of it: the floor's own traffic),
      // timed on the stream and in a graph like the variants; the faster is the size's copy time.
      // At small frames its fixed costs show: no kernel that reads and writes the frame beats it.
      {
        const auto copy = [&](int i) {
          const ImageView src = ins[i % ins.size()].view(), dst = out.view();
          CL_CUDA(cudaMemcpy2DAsync(dst.data, dst.pitch, src.data, src.pitch, std::size_t(w) * 4, std::size_t(h),
                                    cudaMemcpyDeviceToDevice, stream.get()));
        };
        bool graphed = false;
        const Stats onStream = timeLaunches(o, stream.get(), copy, nullptr, false);
        const Stats inGraph = timeLaunches(o, stream.get(), copy, &graphed);
        const double best = graphed ? std::min(onStream.median, inGraph.median) : onStream.median;
        // The same copy as a plain kernel (16 bytes a thread), timed like the variants.
        bool kernelGraphed = false;
        double kernelBackToBack = 0;
        const Stats kernel = timeLaunches(
            o, stream.get(),
            [&](int i) {
              const ImageView src = ins[i % ins.size()].view(), dst = out.view();
              bench::launchCopyKernel(src.data, src.pitch, dst.data, dst.pitch, w, h, stream.get());
            },
            &kernelGraphed, true, nullptr, &kernelBackToBack);
        frameCopies.push_back({{"width", w},
                               {"height", h},
                               {"stream_ms", onStream.median},
                               {"graph_ms", graphed ? json(inGraph.median) : json(nullptr)},
                               {"mpix_s", double(w) * h / 1e6 / (best * 1e-3)},
                               {"kernel_ms", kernel.median},
                               {"kernel_mpix_s", double(w) * h / 1e6 / (kernel.median * 1e-3)},
                               {"kernel_back_to_back_ms", kernelBackToBack},
                               {"empty_kernel_ms", empty.median},
                               {"empty_kernel_back_to_back_ms", emptyBackToBack}});
        std::printf("frame copy (cudaMemcpy2DAsync) %dx%d: %.4f ms on the stream, %s in a graph: %.0f MPix/s\n", w, h,
                    onStream.median, graphed ? (std::to_string(inGraph.median) + " ms").c_str() : "not timed",
                    double(w) * h / 1e6 / (best * 1e-3));
        std::printf(
            "frame copy (kernel, 16 B a thread) %dx%d: %.4f ms: %.0f MPix/s; back to back %.4f ms: %.0f MPix/s\n", w, h,
            kernel.median, double(w) * h / 1e6 / (kernel.median * 1e-3), kernelBackToBack,
            double(w) * h / 1e6 / (kernelBackToBack * 1e-3));
      }
      struct Case {
        Filter filter;
        bool separableTaps;
        std::string mask;  // the results' mask column
      };
      std::vector<Case> cases;
      for (int r : o.radii) cases.push_back({makeFilter("gaussian", {.radius = r}), true, "gaussian"});
      for (const auto& [kind, f] : bench::builtInFilters(o.masks, o.radii))
        cases.push_back({f, f.mask.separable(), kind});
      for (int cr : o.customRadii) {
        // Positive random weights normalised to 1, as peers.py and npp-peer use.
        std::uniform_real_distribution<float> d(0.f, 1.f);
        const int n = 2 * cr + 1;
        std::vector<float> wts(n * n);
        double sum = 0;
        for (auto& v : wts) sum += v = d(rng);
        for (auto& v : wts) v = static_cast<float>(v / sum);
        Filter f;
        f.name = "custom2d";
        f.mask = Mask(cr, wts);
        cases.push_back({f, false, "custom"});
      }
      for (const Variant& v : variants()) {
        if (!v.onGpu) continue;
        if (!o.variants.empty() && std::find(o.variants.begin(), o.variants.end(), v.name) == o.variants.end())
          continue;
        for (const Case& c : cases)
          for (const Tile& t : v.runnableTiles()) {
            if (!bench::timesTile(o.tiles, t)) continue;
            FilterParams p;
            p.filter = c.filter;
            p.tile = t;
            const int r = c.filter.mask.radius();
            const int taps = c.separableTaps ? 2 * (2 * r + 1) : (2 * r + 1) * (2 * r + 1);
            const double pixels = double(w) * h, bytes = pixels * 8.0, flops = pixels * 4.0 * 2.0 * taps;
            const double floorMs = std::max(bytes / (copyGBs * 1e9), flops / peak) * 1e3;
            json row{{"impl", "convlive/" + v.name},
                     {"variant", v.name},
                     {"tile", t.str()},
                     {"mask", c.mask},
                     {"radius", r},
                     {"width", w},
                     {"height", h},
                     {"floor_ms", floorMs},
                     {"error", nullptr}};
            Problem why;
            Plan plan = Plan::make(p, v.name, ImageDesc::rgba8(w, h), {.memory = Memory::Device}, why);
            if (!plan) {
              row["error"] = why.text();
              results.push_back(row);
              continue;
            }
            bool graphed = false;
            double hostUs = 0, backToBack = 0;
            const Stats st = timeLaunches(
                o, stream.get(), [&](int i) { plan.run(ins[i % ins.size()].view(), out.view(), stream.get()); },
                &graphed, true, &hostUs, &backToBack);
            const double mpix = pixels / 1e6 / (st.median * 1e-3), gbs = bytes / (st.median * 1e-3) / 1e9;
            row.update({{"median_ms", st.median},
                        {"min_ms", st.min},
                        {"p90_ms", st.p90},
                        {"mpix_s", mpix},
                        {"gbps", gbs},
                        {"pct_copy_bw", 100.0 * gbs / copyGBs},
                        {"host_us", hostUs},
                        {"back_to_back_ms", backToBack},
                        {"back_to_back_mpix_s", pixels / 1e6 / (backToBack * 1e-3)},
                        {"timing", graphed ? "graph" : "stream"}});
            results.push_back(row);
            std::printf("%-11s %-6s %-8s %3d %4dx%-5d %10.4f %10.0f %8.0f %6.1f%% %9.4f %10.4f\n", v.name.c_str(),
                        t.str().c_str(), row["mask"].get<std::string>().c_str(), r, w, h, st.median, mpix, gbs,
                        100.0 * gbs / copyGBs, floorMs, backToBack);
            std::fflush(stdout);
          }
      }
    }
    const json doc{{"tool", "convlive-bench"},
                   {"date", today()},
                   {"device", dev.name},
                   {"sm_count", dev.multiprocessors},
                   {"copy_bandwidth_gbps", copyGBs},
                   {"fp32_peak_tflops", peak / 1e12},
                   {"settings",
                    {{"repeats", o.repeats},
                     {"warmup", o.warmup},
                     {"warmup_ms", o.warmupMs},
                     {"frames", o.frames},
                     {"border", "clamp"},
                     {"alpha", "passes through"}}},
                   {"results", results},
                   {"frame_copy", frameCopies}};
    std::ostringstream csv;
    csv << "variant,tile,mask,radius,width,height,median_ms,min_ms,p90_ms,mpix_s,gbps,pct_copy_bw,host_us,floor_ms,"
           "back_to_back_ms,error\n";
    for (const auto& r : results) {
      auto num = [&](const char* k) { return r.contains(k) ? std::to_string(r[k].get<double>()) : std::string(); };
      csv << r["variant"].get<std::string>() << "," << r["tile"].get<std::string>() << ","
          << r["mask"].get<std::string>() << "," << r["radius"] << "," << r["width"] << "," << r["height"] << ","
          << num("median_ms") << "," << num("min_ms") << "," << num("p90_ms") << "," << num("mpix_s") << ","
          << num("gbps") << "," << num("pct_copy_bw") << "," << num("host_us") << "," << num("floor_ms") << ","
          << num("back_to_back_ms") << ",\"" << (r["error"].is_null() ? "" : r["error"].get<std::string>()) << "\"\n";
    }
    for (const auto& [name, text] :
         {std::pair{"/convlive.json", doc.dump(1) + "\n"}, std::pair{"/convlive.csv", csv.str()}})
      if (!writeFileAtomically(o.outDir + name, text)) {
        std::cerr << "convlive-bench: could not write " << o.outDir << name
                  << ": check that the disk has room and the folder is still there\n";
        return 1;
      }
    std::printf("wrote %s/convlive.json and convlive.csv\n", o.outDir.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "convlive-bench: " << e.what() << "\n";
    return 1;
  }
}
