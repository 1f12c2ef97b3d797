#include "convlive/inspect.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "kernels/launch.hpp"

namespace convlive {

std::string Dims::str() const {
  std::string s = std::to_string(x) + "x" + std::to_string(y);
  return z == 1 ? s : s + "x" + std::to_string(z);
}

int OccupancyLimits::min() const { return std::min({registers, shared, threads, blocks}); }

std::string OccupancyLimits::limiter() const {
  const int m = min();
  std::string s;
  const auto add = [&](int limit, const char* name) {
    if (limit == m) s += (s.empty() ? "" : " and ") + std::string(name);
  };
  add(registers, "registers");
  add(shared, "shared memory");
  add(threads, "threads");
  add(blocks, "blocks per SM");
  return s;
}

namespace {

long long roundUp(long long a, long long unit) { return unit > 0 ? (a + unit - 1) / unit * unit : a; }

// Registers go to warps in allocation units, each warp's within one of the SM's sub-partitions;
// the hardware checks a block against the per-block limit as if its warps filled every partition.
int registerLimit(const SmResources& sm, int warps, int registers) {
  if (registers <= 0 || warps <= 0) return sm.maxBlocksPerSm;
  const long long perWarp = roundUp(32LL * registers, sm.registerAllocationUnit);
  const long long assumed = perWarp * roundUp(warps, sm.registerSubPartitions);
  if (assumed > sm.registersPerBlock || perWarp * warps > sm.registersPerBlock || registers > 255) return 0;
  const long long warpsPerSm = sm.registersPerSm / sm.registerSubPartitions / perWarp * sm.registerSubPartitions;
  return static_cast<int>(warpsPerSm / warps);
}

// Shared memory goes to blocks in allocation units, with the driver's reserve on top.
int sharedLimit(const SmResources& sm, std::size_t bytes) {
  if (bytes > sm.sharedPerBlockOptin) return 0;
  const long long perBlock =
      roundUp(static_cast<long long>(bytes + sm.reservedSharedPerBlock), sm.sharedAllocationUnit);
  if (perBlock == 0) return sm.maxBlocksPerSm;
  return static_cast<int>(static_cast<long long>(sm.sharedPerSm) / perBlock);
}

}  // namespace

OccupancyLimits occupancyLimits(const SmResources& sm, int threads, int registers, std::size_t shared) {
  const int warps = (threads + 31) / 32;
  OccupancyLimits l;
  l.registers = registerLimit(sm, warps, registers);
  l.shared = sharedLimit(sm, shared);
  l.threads = warps > 0 ? sm.maxThreadsPerSm / (32 * warps) : 0;
  l.blocks = sm.maxBlocksPerSm;
  return l;
}

const SmResources& deviceSmResources() {
  static const SmResources sm = [] {
    SmResources r;
    const DeviceInfo& d = deviceInfo();
    if (!d.available) return r;
    r.maxThreadsPerSm = d.maxThreadsPerSm;
    r.maxBlocksPerSm = d.maxBlocksPerSm;
    r.registersPerSm = d.registersPerSm;
    r.registersPerBlock = d.registersPerBlock;
    r.sharedPerSm = d.sharedPerSm;
    r.sharedPerBlockOptin = d.sharedPerBlockOptin;
    r.reservedSharedPerBlock = d.reservedSharedPerBlock;
    r.sharedAllocationUnit = d.major >= 8 ? 128 : 256;
    return r;
  }();
  return sm;
}

PassResources passResources(const PassLaunch& pass) {
  PassResources r;
  if (!pass.kernelFunction) {
    r.why = "no kernel";
    return r;
  }
  if (!deviceInfo().available) {
    r.why = "needs a CUDA device (" + deviceInfo().reason + ")";
    return r;
  }
  cudaFuncAttributes a{};
  CL_CUDA(cudaFuncGetAttributes(&a, pass.kernelFunction));
  // The occupancy API counts a block's dynamic shared memory against the kernel's limit, which a
  // launch past 48 KiB raises first: raised here the same way.
  kernels::allowLargeShared(pass.kernelFunction, pass.dynamicShared);
  int blocks = 0;
  CL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pass.kernelFunction, pass.threadsPerBlock,
                                                        pass.dynamicShared));
  const SmResources& sm = deviceSmResources();
  r.available = true;
  r.registers = a.numRegs;
  r.staticShared = a.sharedSizeBytes;
  r.localBytes = a.localSizeBytes;
  r.blocksPerSm = blocks;
  const int warps = (pass.threadsPerBlock + 31) / 32;
  r.occupancy = sm.maxThreadsPerSm > 0 ? double(blocks) * warps * 32 / sm.maxThreadsPerSm : 0;
  r.limits = occupancyLimits(sm, pass.threadsPerBlock, a.numRegs, a.sharedSizeBytes + pass.dynamicShared);
  r.limiter = r.limits.limiter();
  return r;
}

Achieved achieved(const WorkModel& m, int width, int height, double ms) {
  if (ms <= 0) return {};
  const double pixels = double(width) * height, perSecond = 1e3 / ms;
  return {pixels * perSecond / 1e6, m.dramBytes * pixels * perSecond / 1e9, m.totalFlops() * pixels * perSecond / 1e9};
}

namespace {

// p with a tile v offers: p's own where v offers it, else v's default.
FilterParams withOwnTile(const Variant& v, const FilterParams& p) {
  FilterParams q = p;
  if (v.tiles.empty() || std::find(v.tiles.begin(), v.tiles.end(), p.tile) == v.tiles.end()) q.tile = Tile{};
  return q;
}

}  // namespace

namespace {

// The figures of v for p on the frames `frames...` names (width, height: one RGBA8 frame; or an
// ImageDesc), as Variant's whyNot, describeLaunch and workModel take them.
template <class... Frames>
VariantInspection inspectOn(const Variant& v, const FilterParams& p, const Frames&... frames) {
  const FilterParams q = withOwnTile(v, p);
  VariantInspection r;
  r.variant = &v;
  r.tile = v.tiles.empty() ? Tile{} : v.tileFor(q);
  r.why = v.whyNot(q, frames...);
  if (!r.hasFigures()) return r;
  r.launch = v.describeLaunch(q, frames...);
  r.model = v.workModel(q, frames...);
  for (const PassLaunch& pass : r.launch.passes) r.resources.push_back(passResources(pass));
  return r;
}

}  // namespace

VariantInspection inspectVariant(const Variant& v, const FilterParams& p, int width, int height) {
  return inspectOn(v, p, width, height);
}

VariantInspection inspectVariant(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return inspectOn(v, p, image);
}

std::vector<VariantInspection> inspectVariants(const FilterParams& p, int width, int height) {
  std::vector<VariantInspection> all;
  for (const Variant& v : variants()) all.push_back(inspectVariant(v, p, width, height));
  return all;
}

struct TimingFrame::Impl {
  HostImage in, out;
  std::optional<DeviceImage> deviceIn, deviceOut;  // made on the first GPU timing
  std::optional<Stream> stream;

  Impl(int width, int height) : in(width, height), out(width, height) {
    std::mt19937 rng(11);
    for (auto& b : in.pixels()) b = static_cast<std::uint8_t>(rng() >> 24);
  }
  void onDevice() {
    if (deviceIn) return;
    deviceIn.emplace(in.width(), in.height());
    deviceOut.emplace(in.width(), in.height());
    stream.emplace();
    deviceIn->upload(in.view(), stream->get());
  }
};

TimingFrame::TimingFrame(int width, int height) : impl_(std::make_unique<Impl>(width, height)) {}
TimingFrame::~TimingFrame() = default;
TimingFrame::TimingFrame(TimingFrame&&) noexcept = default;
TimingFrame& TimingFrame::operator=(TimingFrame&&) noexcept = default;
int TimingFrame::width() const { return impl_->in.width(); }
int TimingFrame::height() const { return impl_->in.height(); }

namespace {

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// GPU variants: each launch between two events on the frame's stream, after warm-up launches
// (module load, attributes, textures, the workspace's planes).
Timing timeOnGpu(Plan& plan, TimingFrame::Impl& f, int runs) {
  f.onDevice();
  const cudaStream_t s = f.stream->get();
  for (int i = 0; i < 3; ++i) plan.run(f.deviceIn->view(), f.deviceOut->view(), s);
  Event a, b;
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    a.record(s);
    plan.run(f.deviceIn->view(), f.deviceOut->view(), s);
    b.record(s);
    b.synchronize();
    ms.push_back(b.elapsedSince(a));
  }
  return {true, median(ms), runs, {}};
}

// CPU variants: the steady clock, one warm-up run, then as many runs as fit in about 250 ms (3 to
// `runs`): the reference takes tens of milliseconds a frame.
Timing timeOnCpu(Plan& plan, TimingFrame::Impl& f, int runs) {
  const auto once = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    plan.run(f.in.view(), f.out.view());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  const double first = once();
  const int n = std::clamp(static_cast<int>(250 / std::max(first, 1e-3)), 3, std::max(3, runs));
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) ms.push_back(once());
  return {true, median(ms), n, {}};
}

}  // namespace

Timing timeVariant(const Variant& v, const FilterParams& p, TimingFrame& frame, int runs) {
  Problem why;
  Plan plan = Plan::make(withOwnTile(v, p), v.name, ImageDesc::rgba8(frame.width(), frame.height()),
                         {.memory = Memory::Native, .cpuFallback = false}, why);
  if (!plan) return {false, 0, 0, why};
  runs = std::max(1, runs);
  return plan.onGpu() ? timeOnGpu(plan, frame.impl(), runs) : timeOnCpu(plan, frame.impl(), runs);
}

}  // namespace convlive
