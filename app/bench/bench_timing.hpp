// The benchmark programs' timing, shared by convlive-bench's modes (bench.cpp, typed_bench.cpp):
// the median, min and p90 of launches timed with CUDA events, replayed from a CUDA graph where
// capture works, after a warm-up; and the time a launch back to back. `O` is the program's options:
// any type with `repeats`, `warmup` and `warmupMs`.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <type_traits>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive::bench {

struct Stats {
  double median, min, p90;
};
inline Stats summarize(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t[std::min(t.size() - 1, t.size() * 9 / 10)]};
}

struct GraphExecDeleter {
  void operator()(cudaGraphExec_t e) const { (void)cudaGraphExecDestroy(e); }
};
using GraphExec = std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter>;

// What `enqueue` puts on `s`, captured into a graph and instantiated; empty where CUDA refused
// (the caller then runs it on the stream instead).
template <class F>
GraphExec captureGraph(cudaStream_t s, F&& enqueue) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  try {
    CL_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      (void)cudaStreamEndCapture(s, &graph);
      if (graph) (void)cudaGraphDestroy(graph);
      graph = nullptr;
      throw;
    }
    CL_CUDA(cudaStreamEndCapture(s, &graph));
    CL_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  } catch (const CudaError&) {
    (void)cudaGetLastError();
  }
  if (graph) (void)cudaGraphDestroy(graph);
  return GraphExec(exec);
}

template <class O, class F>
double timeBackToBack(const O& o, cudaStream_t s, F& launch, bool useGraph) {
  const auto enqueue = [&] {
    for (int i = 0; i < o.repeats; ++i) launch(i);
  };
  const GraphExec exec = useGraph ? captureGraph(s, enqueue) : GraphExec();
  Event a, b;
  std::vector<float> perCall;
  for (int rep = 0; rep < 6; ++rep) {  // the first replay warms up
    a.record(s);
    if (exec)
      CL_CUDA(cudaGraphLaunch(exec.get(), s));
    else
      enqueue();
    b.record(s);
    CL_CUDA(cudaStreamSynchronize(s));
    if (rep > 0) perCall.push_back(b.elapsedSince(a) / o.repeats);
  }
  return summarize(perCall).median;
}

// Times `launch(i)` with events around each call on `s`. The timed calls and their events are
// captured into a CUDA graph and replayed, so the host's launch work never leaves the GPU idle
// between them (which would add to the times); `graphed` says whether that worked (else the calls
// were timed straight on the stream). `hostUs`: the median host time of one call during the
// warm-up (its checks, preparation reused, and the launch itself), in microseconds.
// `backToBackMs`: the time a call as a stream of frames, with no events between the calls: the
// median over 5 replays of --repeats calls between two events (in a graph where that works), over
// the calls. A launch's fixed costs (its start, its first loads, its last blocks) then overlap
// the neighbouring calls' wherever the GPU can overlap them: the rate a video pipeline sustains.
template <class O, class F>
Stats timeLaunches(const O& o, cudaStream_t s, F launch, bool* graphed = nullptr, bool allowGraph = true,
                   double* hostUs = nullptr, double* backToBackMs = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> host;
  for (int i = 0; i < o.warmup || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(o.warmupMs); ++i) {
    const auto h0 = std::chrono::steady_clock::now();
    launch(i);
    host.push_back(std::chrono::duration<float, std::micro>(std::chrono::steady_clock::now() - h0).count());
    if (i % 8 == 7) CL_CUDA(cudaStreamSynchronize(s));  // bounded queue: the time is GPU time
  }
  if (hostUs) *hostUs = host.size() > 1 ? summarize({host.begin() + 1, host.end()}).median : host.at(0);
  CL_CUDA(cudaStreamSynchronize(s));
  std::vector<Event> start(o.repeats), stop(o.repeats);
  auto enqueue = [&](bool capturing) {
    // While capturing, only "external" event records become nodes that record when the graph runs.
    const unsigned flags = capturing ? cudaEventRecordExternal : cudaEventRecordDefault;
    for (int i = 0; i < o.repeats; ++i) {
      CL_CUDA(cudaEventRecordWithFlags(start[i].get(), s, flags));
      launch(i);
      CL_CUDA(cudaEventRecordWithFlags(stop[i].get(), s, flags));
    }
  };
  const GraphExec exec = allowGraph ? captureGraph(s, [&] { enqueue(true); }) : GraphExec();
  bool useGraph = exec != nullptr;
  if (useGraph) try {
      CL_CUDA(cudaGraphLaunch(exec.get(), s));
    } catch (const CudaError&) {
      useGraph = false;
      (void)cudaGetLastError();
    }
  if (!useGraph) enqueue(false);
  CL_CUDA(cudaStreamSynchronize(s));
  if (graphed) *graphed = useGraph;
  std::vector<float> ms;
  for (int i = 0; i < o.repeats; ++i) ms.push_back(stop[i].elapsedSince(start[i]));
  if (backToBackMs) *backToBackMs = timeBackToBack(o, s, launch, useGraph);
  return summarize(ms);
}

}  // namespace convlive::bench
