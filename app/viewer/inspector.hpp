// The panel's inspector, apart from its drawing (inspector_panel.hpp): for the running variant,
// tile and filter on the current frame size, its launch and work model (convlive/inspect.hpp),
// recomputed only when one of those changes; its measured time from the live filter (the
// pipeline's filter stage, the median of the frames since the change); the compare runner's
// times; a book of the best time measured for each (variant, tile, filter, frame size); and
// from these the achieved rates and the roofline's points. Render thread only (the compare runner
// times on its own thread).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "convlive/inspect.hpp"
#include "convlive/spec.hpp"
#include "convlive/timing.hpp"
#include "convlive/variants.hpp"
#include "inspector_compare.hpp"
#include "roofline.hpp"

namespace convlive {

// The filter's part of a key: what the kernels run (mask and its settings, border, alpha), without
// the variant and the tile.
std::string filterKey(const FilterSpec& spec);

struct RunKey {
  std::string variant;
  Tile tile{};
  std::string filter;  // filterKey
  int width = 0, height = 0;
  bool operator<(const RunKey& o) const {
    return std::tie(variant, tile.w, tile.h, filter, width, height) <
           std::tie(o.variant, o.tile.w, o.tile.h, o.filter, o.width, o.height);
  }
  bool operator==(const RunKey& o) const {
    return variant == o.variant && tile == o.tile && filter == o.filter && width == o.width && height == o.height;
  }
};

// The best (lowest) time measured for each run key, whichever way it was measured.
class TimingBook {
 public:
  void record(const RunKey& key, double ms);
  std::optional<double> best(const RunKey& key) const;
  // Every entry for this filter and frame size.
  std::vector<std::pair<RunKey, double>> at(const std::string& filter, int width, int height) const;
  std::size_t size() const { return best_.size(); }

 private:
  std::map<RunKey, double> best_;
};

// The live filter's time for one run key: the median of the filter stage's samples that came
// after the key was set, leaving out the first kSettle (frames already in flight with the old
// settings) and waiting for kMinSamples.
class LiveFilterSample {
 public:
  static constexpr std::uint64_t kSettle = 3, kMinSamples = 5;
  // A new key: samples from `stageCount` on (StageStats::count()) belong to it.
  void reset(const RunKey& key, std::uint64_t stageCount);
  const RunKey& key() const { return key_; }
  // The median once enough samples came, else nothing.
  std::optional<double> median(const StageStats& stage) const;
  // Samples behind the median (0 while waiting).
  std::uint64_t samples(const StageStats& stage) const;

 private:
  RunKey key_;
  std::uint64_t mark_ = 0;
};

// What the running variant achieves at a measured time, and as shares of the roofs (0: unknown).
struct AchievedFigures {
  double ms = 0, mpixPerS = 0, gbPerS = 0, gflopPerS = 0;
  double fp32GFlops = 0, matrixGFlops = 0;  // the two parts of gflopPerS
  double ofCopy = 0, ofFp32 = 0, ofMatrix = 0;
};
AchievedFigures achievedFigures(const WorkModel& m, int width, int height, double ms, const Roofs& roofs);

// What the inspector reads each pass.
struct InspectorInputs {
  FilterSpec spec;                   // the applied filter
  const Variant* running = nullptr;  // the running variant (auto resolved)
  Tile tile{};                       // its tile
  int width = 0, height = 0;         // the current frame's size
  // The frames the running variant filters: RGBA8, or a grey source's as they come (u8 or u16, one
  // channel).
  PixelType type = PixelType::U8;
  int channels = 4;
  const StageStats* filterStage = nullptr;  // the pipeline's filter stage
  int timedWidth = 0, timedHeight = 0;      // the frame size that stage timed
  Roofs roofs;                              // measured at start
  bool paused = false;                      // whether the video is paused
  std::function<void()> togglePause;        // pauses or plays it (empty: the inspector never pauses)
};

class Inspector {
 public:
  using InspectFn = std::function<VariantInspection(const Variant&, const FilterParams&, const ImageDesc&)>;
  // `inspect` and `timer` default to the real ones (inspectVariant, makeFrameTimer).
  explicit Inspector(InspectFn inspect = {}, std::shared_ptr<VariantTimer> timer = {});
  ~Inspector();

  // Once a pass: recomputes the inspection when the variant, tile, filter or frame size changed,
  // samples the live filter time, takes the compare runner's new results into the book, and
  // drops them (cancelling the run) when the filter or the frame size changed.
  void update(const InspectorInputs& in);

  // The running variant's figures (nullptr before the first update, or when it failed: error()).
  const VariantInspection* inspection() const { return inspection_ ? &*inspection_ : nullptr; }
  const std::string& error() const { return error_; }
  const RunKey& runKey() const { return runKey_; }
  const FilterParams* params() const { return params_ ? &*params_ : nullptr; }
  int inspections() const { return inspections_; }  // how many times it was computed (tests)

  // The live filter's median for the running key, and how many frames it is from.
  std::optional<double> liveMs() const { return liveMs_; }
  std::uint64_t liveSamples() const { return liveSamples_; }
  // The best time in the book for the running key.
  std::optional<double> bestMs() const { return book_.best(runKey_); }
  const TimingBook& book() const { return book_; }

  // Every variant timed at this filter and frame size (the book), as roofline points, the running
  // one highlighted: the GPU variants, and the CPU ones `withCpu` (where there are no GPU roofs
  // they would be measured against).
  std::vector<RooflinePoint> rooflinePoints(bool withCpu = false) const;
  // CPU variants in the book at this filter and size.
  std::vector<std::string> cpuTimed() const;

  // The compare table. requestCompare times every variant that can run the filter on a frame of
  // this size; with `pauseVideo` it pauses the video first (when it plays) and plays it again
  // when the run ends or is dropped.
  void requestCompare(bool pauseVideo);
  void cancelCompare();
  CompareState compare() const;
  bool waitingForPause() const { return waitingForPause_; }
  // What cannot be timed here (GPU variants without a device), for the table's note.
  const std::vector<std::string>& notTimed() const { return notTimed_; }
  // Why the compare table cannot be made for these frames ("" when it can): it times the variants
  // on RGBA8 frames.
  std::string compareRefusal() const;
  // The frames inspected (their size, type and channels).
  const ImageDesc& frames() const { return frames_; }

 private:
  void reinspect(const InspectorInputs& in);
  void sampleLive(const InspectorInputs& in);
  void followCompare(const InspectorInputs& in);
  void startCompare();
  const WorkModel* modelOf(const RunKey& key) const;

  InspectFn inspect_;
  CompareRunner runner_;
  FilterSpec spec_;
  bool haveSpec_ = false;
  std::optional<FilterParams> params_;
  std::string filterKey_;
  RunKey runKey_;
  bool haveKey_ = false;
  std::optional<VariantInspection> inspection_;
  std::string error_;
  int inspections_ = 0;
  LiveFilterSample live_;
  std::optional<double> liveMs_;
  std::uint64_t liveSamples_ = 0;
  TimingBook book_;
  mutable std::map<std::string, std::optional<WorkModel>> models_;  // by variant and tile, at modelsKey_
  mutable std::string modelsKey_;
  // The compare run: its key, the rows taken into the book, whether we paused the video for it.
  std::string compareKey_;
  std::size_t rowsBooked_ = 0;
  bool wantCompare_ = false, wantPause_ = false, waitingForPause_ = false, pausedForCompare_ = false;
  std::chrono::steady_clock::time_point pauseAsked_{};
  std::string paramsError_;
  std::vector<std::string> notTimed_;
  ImageDesc frames_ = ImageDesc::rgba8(0, 0);  // the frames inspected: their size, type and channels
  std::string framesKey_;                      // the frames' part of filterKey_ ("" for RGBA8)
};

}  // namespace convlive
