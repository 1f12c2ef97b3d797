#include "tune.hpp"

#include <iomanip>
#include <ostream>
#include <random>
#include <sstream>

#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"

namespace convlive {
namespace {

struct Case {
  std::string kind;
  int radius;
};

Filter filterFor(const Case& c) {
  if (c.kind != "custom") return makeFilter(c.kind, {.radius = c.radius});
  // A non-separable mask: positive random weights (timing does not depend on their values).
  std::mt19937 rng(static_cast<unsigned>(c.radius));
  std::uniform_real_distribution<float> d(0.f, 1.f);
  std::ostringstream w;
  const int n = 2 * c.radius + 1;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) w << d(rng) << (j + 1 < n ? "," : (i + 1 < n ? ";" : ""));
  return makeFilter("custom", {.radius = c.radius, .weights = w.str(), .normalize = true});
}

}  // namespace

int runTune(std::ostream& out, std::ostream& err) {
  if (!deviceInfo().available) {
    err << "convlive: tune times the GPU variants, and " << deviceInfo().reason
        << ": without a GPU, auto is the cpu-simd variant\n";
    return 1;
  }
  Tuner& tuner = Tuner::shared();
  std::vector<Case> cases;
  for (int r : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) cases.push_back({"gaussian", r});
  for (int r : {1, 2, 4, 8}) cases.push_back({"box", r});
  for (int r : {1, 2}) cases.push_back({"sobel", r});
  for (int r : {1, 2, 4}) cases.push_back({"laplacian", r});
  for (int r : {1, 2, 4, 8, 16}) cases.push_back({"custom", r});
  out << "tuning auto on " << deviceInfo().name << " (cache: " << tuner.path() << ")\n"
      << std::left << std::setw(11) << "size" << std::setw(11) << "mask" << std::setw(4) << "r" << std::setw(22)
      << "auto (variant tile)" << std::right << std::setw(10) << "ms"
      << "  " << std::left << std::setw(22) << "runner-up" << std::right << std::setw(10) << "ms" << std::setw(8)
      << "ratio"
      << "  how\n";
  for (const auto& [w, h] : {std::pair{1280, 720}, {1920, 1080}, {3840, 2160}})
    for (const Case& c : cases) {
      FilterParams p;
      p.filter = filterFor(c);
      const Plan plan = Plan::make(p, "auto", ImageDesc::rgba8(w, h));  // measures, or finds it cached
      const AutoChoice& a = *plan.autoChoice();
      const TuneEntry& e = a.entry;
      const std::string size = std::to_string(w) + "x" + std::to_string(h);
      out << std::left << std::setw(11) << size << std::setw(11) << c.kind << std::setw(4) << c.radius;
      if (!a.measured) {
        out << a.why << "\n";
        continue;
      }
      out << std::setw(22) << (e.variant + " " + e.tile.str()) << std::right << std::setw(10) << std::fixed
          << std::setprecision(4) << e.ms << "  " << std::left << std::setw(22)
          << (e.runnerUp.empty() ? "-" : e.runnerUp + " " + e.runnerUpTile.str()) << std::right << std::setw(10)
          << e.runnerUpMs << std::setw(8) << std::setprecision(2) << (e.runnerUp.empty() ? 0.0 : e.runnerUpMs / e.ms)
          << "  " << (a.fromCache ? "cached" : "measured") << "\n";
    }
  if (const std::string why = tuner.why(); !why.empty()) out << "note: " << why << "\n";
  out << tuner.size() << " entries in " << tuner.path() << "\n";
  return 0;
}

}  // namespace convlive
