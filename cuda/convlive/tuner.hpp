// `auto`, measured: on first use of a (GPU, frame size, mask kind, separable or not, radius,
// combine rule, fp16 plans) the tuner times every fast variant and tile that can run on a scratch
// frame of that size (a few milliseconds of GPU time), keeps the winner and caches it on disk, so
// later runs (and other programs) reuse it. Thread-safe: the pipeline's thread and the UI may ask.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convlive/variants.hpp"

namespace convlive {

struct TuneKey {
  int width = 0, height = 0;
  std::string kind;  // the filter's name: gaussian, box, custom, ...
  bool separable = false;
  // Not separable: its separable terms where tensorstream takes them (1..4, convlive/low_rank.hpp;
  // r <= 32), else 0. Masks of one kind and radius may differ (custom masks), and their times with them.
  int terms = 0;
  int radius = 0;
  Combine combine = Combine::Identity;
  bool halfSplit = false;   // the tensor-core variants need fp16 high + low weight parts
  bool singleSums = false;  // stream takes the mask (separable, r <= 4) but its fp16 sums do not fit (planHalfSums)
  // A custom 3x3 or 5x5 mask mirror-symmetric across both axes: stream sums it over pairs of pixels, at
  // another speed than another custom mask of that rank (kernels::streamMaskMirrorSymmetric).
  bool mirrored = false;
  // A custom 3x3 or 5x5 mask of integer weights, or magnitude of integer ratios, that stream sums in
  // integers (kernels::streamAnyRankIntegerWeights, streamMagnitudeIntegerFactors): timed apart too.
  bool integerSums = false;
  // The frames' type and channels, the output's type where it is another ("u8x3 to f32"), and the
  // batch where it is not 1 ("f32x3 batch 16"); empty for one u8x4 frame.
  std::string image;
  std::string str() const;  // "3840x2160 gaussian r=4 separable" (also the map key)
  static TuneKey of(const FilterParams& p, int width, int height);
  static TuneKey of(const FilterParams& p, const ImageDesc& image);
};

struct TuneEntry {
  std::string variant;
  Tile tile;
  double ms = 0;         // median of the timed runs
  std::string runnerUp;  // empty when only one candidate could run
  Tile runnerUpTile;
  double runnerUpMs = 0;
};

// What `auto` picked and why, in words for the panel, the report and the command line.
struct AutoChoice {
  const Variant* variant = nullptr;
  Tile tile{};  // {0,0}: the variant's default
  std::string why;
  bool measured = false;   // timed now or earlier on this GPU (cached)
  bool fromCache = false;  // found in the cache instead of timed now
  TuneEntry entry;
};

class Tuner {
 public:
  // Raised whenever a kernel change can move the winners or the refusals (a new candidate, a faster
  // schedule, new tiles): a cache of another version is discarded and measured again.
  static constexpr int kVersion = 31;
  // The variants `auto` times, fastest families first. The classic ones (naive, constant, tiled,
  // texture) were never the fastest in any measured case and one of their launches at
  // 4K with a large mask costs tens of milliseconds, so they are not candidates.
  static const std::vector<std::string>& candidates();

  // A tuner for `gpu` whose cache lives at `path` (read now; missing, unreadable, of another
  // version or another GPU: starts empty, and is rewritten on the next store).
  Tuner(std::string path, std::string gpu);
  // The process's tuner for the calling thread's current GPU (one per GPU name), cached at
  // defaultPath() of that name.
  static Tuner& shared();
  // $CONVLIVE_TUNE_CACHE, else $XDG_CACHE_HOME/convlive/tune-<gpu>.json, else
  // ~/.cache/convlive/tune-<gpu>.json (the GPU's name with non-alphanumerics as '-').
  static std::string defaultPath(const std::string& gpu);

  const std::string& path() const { return path_; }
  const std::string& gpu() const { return gpu_; }
  std::optional<TuneEntry> lookup(const TuneKey& key) const;
  // Records an entry and rewrites the cache file (a temporary file renamed over it, so it is never
  // left half written). Returns false (and keeps the entry in memory) when the file cannot be
  // written; why() then says why.
  bool store(const TuneKey& key, const TuneEntry& entry);
  std::size_t size() const;
  std::string why() const;

  // The measured choice for p on a width x height frame: from the cache, else timed now and
  // stored. Without a usable GPU: the cpu variant, with the reason. Throws CudaError when CUDA
  // fails while timing.
  AutoChoice choose(const FilterParams& p, int width, int height);
  // The same for frames `image` describes (type, channels, batch): only the variants that take them
  // are timed, on a scratch batch of that description.
  AutoChoice choose(const FilterParams& p, const ImageDesc& image);

 private:
  void load();
  bool save();

  std::string path_, gpu_;
  mutable std::mutex mutex_;
  std::map<std::string, std::pair<TuneKey, TuneEntry>> entries_;
  std::string why_;
};

// The order measured on the GPUs, without timing anything: what `auto` falls back to when timing
// fails (out of device memory, say).
const Variant& fixedOrderChoice(const FilterParams& p, int width, int height);
const Variant& fixedOrderChoice(const FilterParams& p, const ImageDesc& image);
// `auto` for p on a width x height frame: Tuner::shared().choose, or, when timing fails, the fixed
// measured order (fixedOrderChoice) with the reason. Convlive::Plan asks it; front ends make plans.
AutoChoice chooseAuto(const FilterParams& p, int width, int height);
AutoChoice chooseAuto(const FilterParams& p, const ImageDesc& image);

}  // namespace convlive
