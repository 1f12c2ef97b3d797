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
  int radius = 0;
  Combine combine = Combine::Identity;
  bool halfSplit = false;   // the tensor-core variants need fp16 high + low weight parts
  bool singleSums = false;  // stream takes the mask (separable, r <= 4) but its fp16 sums do not fit (planHalfSums)
  std::string str() const;  // "3840x2160 gaussian r=4 separable" (also the map key)
  static TuneKey of(const FilterParams& p, int width, int height);
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
  // 2: fft joined the candidates; 3: tensor2d rebuilt (10-53% less time, docs/perf/2026-11-21-h200-tensor2d)
  // and the tensor cores' sums in the error plans: earlier winners and refusals no longer hold;
  // 4: stream's and tensorstream's edge strips first in shorter segments, tensorstream's blocks a row
  // at a time (docs/perf/2026-11-26-h200-edge-schedules, -rows-ahead): their best tiles moved;
  // 5: stream's fp16 sums with alpha kept 3-18% faster (now ahead of tensorstream at 4K r=3 and 1080p
  // r=2, docs/perf/2026-11-26-h200-stream-blue-pairs), tensorstream's subnormal inputs 3-7% (-ts-subnormal),
  // and the key says when stream sums in fp32; 6: tensorstream stores rows of 16 bytes (2-9% faster,
  // docs/perf/2026-11-26-h200-ts-row-stores) and offers taller tiles (64x192, 128x192, 64x288, 64x272: 3-11%
  // at 4K, -ts-tiles), which earlier entries never timed; 7: tensor2d and tensorstream at r > 8 launch as
  // programmatic dependents, and tensorstream offers 64x80, 64x96 and 64x144 (one round of blocks at
  // 1080p r=16, 24 and 32; docs/perf/2026-11-26-h100-s16-1080p); 8: tensorstream at r > 8 with smaller
  // rings, two steps ahead from r = 13 (4K r=13..24 6-11% faster, its best tiles moved to 64x256;
  // docs/perf/2026-11-26-h100-s17-last); 9: tensorstream splits its edge columns finer where its grid
  // is one round (1080p 6-16% faster, its best tiles taller: NOTES.md items 68, 69); 10: tensorstream's
  // window at r > 8 starts r rounded up to 8 left (aligned sectors: 1080p r=9..12 and 25..28 18-19%
  // faster back to back, its best 1080p r=9..12 tile 64x80 in place of 32x64; NOTES.md item 71); 11:
  // tensorstream at r = 9..24 makes its weights from a staged copy of the factors (1080p r=9..16 5-7%
  // faster back to back, its best tile there 32x64 again; NOTES.md item 72); 12: tensorstream at
  // r = 5..8 reads weight fragments made on the host (1080p 2.5-7% faster back to back; item 74); 13:
  // tensorstream prefetches two steps ahead from r = 9 on grids past one round (4K r = 9..12 7-8%
  // faster; item 77).
  static constexpr int kVersion = 13;
  // The variants `auto` times, fastest families first. The classic ones (naive, constant, tiled,
  // texture) were never the fastest in any measured case (docs/perf) and one of their launches at
  // 4K with a large mask costs tens of milliseconds, so they are not candidates.
  static const std::vector<std::string>& candidates();

  // A tuner for `gpu` whose cache lives at `path` (read now; missing, unreadable, of another
  // version or another GPU: starts empty, and is rewritten on the next store).
  Tuner(std::string path, std::string gpu);
  // The process's tuner for this machine's GPU, cached at defaultPath().
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

 private:
  void load();
  bool save();

  std::string path_, gpu_;
  mutable std::mutex mutex_;
  std::map<std::string, std::pair<TuneKey, TuneEntry>> entries_;
  std::string why_;
};

// `auto` for p on a width x height frame: Tuner::shared().choose, or, when timing fails, the fixed
// measured order (fixedOrderChoice) with the reason.
AutoChoice chooseAuto(const FilterParams& p, int width, int height);
// The variant `name` names (chooseVariant), or for "auto" the measured choice, whose tile then goes
// into params when none was asked for; `why` gets auto's reason (empty for a named variant).
const Variant& resolveVariant(std::string_view name, FilterParams& params, int width, int height, std::string& why);

}  // namespace convlive
