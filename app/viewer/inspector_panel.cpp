#include "inspector_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "convlive/peaks.hpp"
#include "convlive/resources.hpp"
#include "copy_bandwidth.hpp"
#include "roofline_draw.hpp"
#include "words.hpp"

namespace convlive {
namespace {

const ImVec4 kNote(0.65f, 0.68f, 0.75f, 1);
const ImVec4 kBest(0.5f, 0.9f, 0.5f, 1);
const ImVec4 kWarn(1, 0.8f, 0.3f, 1);

// About three significant digits: 1234, 12.3, 1.23, 0.123.
std::string fig(double v) {
  char b[32];
  const double a = std::fabs(v);
  if (v == std::floor(v) && a < 1e7)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
  return b;
}
std::string pct(double share) {
  char b[32];
  std::snprintf(b, sizeof b, share >= 0.1 ? "%.0f%%" : "%.1f%%", 100 * share);
  return b;
}
std::string bytes(std::size_t n) {
  if (n == 0) return "0";
  if (n < 1024) return std::to_string(n) + " B";
  return fig(double(n) / 1024) + " KiB";
}
std::string msText(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, ms >= 100 ? "%.0f ms" : ms >= 10 ? "%.1f ms" : ms >= 1 ? "%.2f ms" : "%.3f ms", ms);
  return b;
}

void note(PanelRecord& rec, const std::string& text, const ImVec4& colour = kNote) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::PushTextWrapPos(0.f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  rec.notes.push_back(text);
}

// One row of a figures table: its label, then a cell per column; `tip` on hovering the label.
void row(PanelRecord& rec, const char* label, const std::vector<std::string>& cells, const char* tip = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  if (tip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  for (const std::string& c : cells) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.c_str());
  }
  rec.inspectorRows.push_back(label);
}

bool beginFigures(const char* id, int columns) {
  return ImGui::BeginTable(id, columns, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp);
}

PanelRect lastItemRect(float top) {
  const ImVec2 max = ImGui::GetItemRectMax();
  const ImVec2 min = ImGui::GetWindowPos();
  return {min.x, top, ImGui::GetWindowWidth(), max.y - top};
}

void launchTable(PanelRecord& rec, const VariantInspection& in) {
  const auto& passes = in.launch.passes;
  const int n = int(passes.size());
  if (!beginFigures("launch", 1 + n)) return;
  ImGui::TableSetupColumn("launch");
  for (const PassLaunch& p : passes) ImGui::TableSetupColumn(p.pass.empty() ? "kernel" : p.pass.c_str());
  ImGui::TableHeadersRow();
  const auto each = [&](auto cell) {
    std::vector<std::string> cells;
    for (int i = 0; i < n; ++i) cells.push_back(cell(passes[std::size_t(i)], in.resources[std::size_t(i)]));
    return cells;
  };
  using P = const PassLaunch&;
  using R = const PassResources&;
  row(rec, "kernel", each([](P p, R) { return p.kernel; }));
  row(rec, "grid", each([](P p, R) { return p.grid.str(); }));
  row(rec, "block", each([](P p, R) { return p.block.str(); }));
  row(rec, "threads/block", each([](P p, R) { return std::to_string(p.threadsPerBlock); }));
  row(rec, "px/thread", each([](P p, R) { return fig(p.outputsPerThread); }), "output values a thread makes");
  row(rec, "blocks/SM", each([](P, R r) { return r.available ? std::to_string(r.blocksPerSm) : std::string("-"); }),
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  row(rec, "occupancy", each([](P, R r) { return r.available ? pct(r.occupancy) : std::string("-"); }),
      "resident warps over the SM's maximum");
  row(rec, "registers", each([](P, R r) { return r.available ? std::to_string(r.registers) : std::string("-"); }),
      "per thread (cudaFuncGetAttributes)");
  row(rec, "static smem", each([](P p, R r) { return bytes(r.available ? r.staticShared : p.staticShared); }),
      "shared memory a block declares");
  row(rec, "dynamic smem", each([](P p, R) { return bytes(p.dynamicShared); }), "shared memory the launch asks for");
  row(rec, "limited by", each([](P, R r) { return r.available ? r.limiter : std::string("-"); }),
      "the resource that caps blocks per SM");
  bool spills = false;
  for (const PassResources& r : in.resources) spills |= r.available && r.localBytes > 0;
  if (spills) row(rec, "local (spills)", each([](P, R r) { return bytes(r.localBytes); }), "per thread");
  ImGui::EndTable();
  for (const PassLaunch& p : passes)
    if (!p.note.empty()) note(rec, (p.pass.empty() ? "" : p.pass + ": ") + p.note);
  if (!in.resources.empty() && !in.resources.front().available)
    note(rec, "blocks/SM, occupancy, registers: " + in.resources.front().why);
}

void modelTable(PanelRecord& rec, const WorkModel& m) {
  if (!beginFigures("model", 2)) return;
  ImGui::TableSetupColumn("work per output pixel");
  ImGui::TableSetupColumn("");
  ImGui::TableHeadersRow();
  row(rec, "global loads", {fig(m.globalReads)}, "reads of input pixels (or intermediate values) from global memory");
  row(rec, "global bytes", {fig(m.globalBytes)});
  row(rec, "shared bytes", {fig(m.sharedBytes)}, "bytes read from shared memory");
  row(rec, "apron", {fig(m.apron)}, "input values staged per value made (1: no apron)");
  row(rec, "idle threads", {pct(m.idleThreads)}, "threads that make no output while the others compute");
  row(rec, "FP32 FLOPs", {fig(m.flops)}, "a multiply-add counted as 2");
  if (m.matrixFlops > 0)
    row(rec, "mma FLOPs", {fig(m.matrixFlops) + " (" + pct(m.matrixWaste()) + " on zeros)"},
        "tensor-core FLOPs executed, and the share spent on the Toeplitz band's zeros");
  row(rec, "DRAM bytes", {fig(m.dramBytes)}, "each input read once, each output written once, plus planes");
  row(rec, "FLOP/byte", {fig(m.intensity())}, "arithmetic intensity: what the roofline plots");
  ImGui::EndTable();
  if (!m.notes.empty() && ImGui::TreeNode("what the counts assume")) {
    for (const std::string& n : m.notes) ImGui::BulletText("%s", n.c_str());
    ImGui::TreePop();
  }
}

}  // namespace

void InspectorPanel::update(PanelModel& m) {
  const PanelFacts& f = m.facts();
  FilterController& fc = m.filter();
  InspectorInputs in;
  in.spec = fc.applied();
  in.running = fc.running();
  if (in.running && !in.running->tiles.empty()) in.tile = fc.runningTile();
  fc.frameSize(in.width, in.height);
  // The frames as they were filtered: a grey source's as they come, unless expanded to RGBA8.
  in.type = f.frames.type;
  in.channels = f.frames.channels;
  if (f.timings.stages.size() > std::size_t(Stage::Filter)) in.filterStage = &f.timings[Stage::Filter];
  in.timedWidth = f.timings.width;
  in.timedHeight = f.timings.height;
  const DeviceRoofs& dr = deviceRoofs();
  roofs_ = Roofs{f.copyGBs > 0 ? f.copyGBs : dr.copyGBs, dr.fp32GFlops, dr.matrixGFlops};
  in.roofs = roofs_;
  in.paused = f.paused;
  in.togglePause = [&m] { m.apply(Action::TogglePause); };
  inspector_.update(in);
}

void InspectorPanel::inspectorSection(PanelRecord& rec) {
  const float top = ImGui::GetCursorScreenPos().y;
  const RunKey& key = inspector_.runKey();
  const VariantInspection* in = inspector_.inspection();
  std::string title = key.variant;
  if (!(key.tile == Tile{})) title.append(" ").append(key.tile.str());
  ImGui::TextWrapped("%s on %dx%d: %s", title.c_str(), key.width, key.height, key.filter.c_str());
  if (!in) {
    note(rec, inspector_.error().empty() ? "nothing to inspect yet" : inspector_.error(), kWarn);
    rec.inspector = lastItemRect(top);
    return;
  }
  if (!in->hasFigures()) {
    note(rec, "cannot run: " + forPanel(in->why), kWarn);
    rec.inspector = lastItemRect(top);
    return;
  }
  if (in->launch.passes.empty())
    note(rec, key.variant + (in->variant && !in->variant->onGpu ? " launches no kernel: it runs on the CPU"
                                                                : " launches no kernel: " + in->launch.none));
  else
    launchTable(rec, *in);
  modelTable(rec, in->model);

  // Achieved, from the live filter's median (or the best time measured for these settings).
  const std::optional<double> live = inspector_.liveMs(), best = inspector_.bestMs();
  if (!live && !best) {
    note(rec, "achieved: waiting for frames with these settings");
  } else {
    const double ms = live ? *live : *best;
    const AchievedFigures a = achievedFigures(in->model, key.width, key.height, ms, roofs_);
    const bool gpu = in->variant && in->variant->onGpu;
    if (beginFigures("achieved", 2)) {
      ImGui::TableSetupColumn(live ? "achieved (live filter)" : "achieved (best timed)");
      ImGui::TableSetupColumn("");
      ImGui::TableHeadersRow();
      const std::string from = live ? "median of " + std::to_string(inspector_.liveSamples()) + " frames" : "timed";
      row(rec, "time", {msText(ms) + " (" + from + ")"});
      if (best && live) row(rec, "best measured", {msText(*best)});
      row(rec, "MPix/s", {fig(a.mpixPerS)});
      row(rec, "GB/s", {fig(a.gbPerS) + (gpu && a.ofCopy > 0 ? " = " + pct(a.ofCopy) + " of copy" : "")},
          "DRAM bytes per pixel x pixels per second, against the measured copy bandwidth");
      row(rec, "GFLOP/s", {fig(a.gflopPerS)});
      if (gpu && a.fp32GFlops > 0 && a.ofFp32 > 0) row(rec, "of FP32 peak", {pct(a.ofFp32)}, fp32PeakMethod());
      if (gpu && a.matrixGFlops > 0)
        row(rec, "of mma peak", {a.ofMatrix > 0 ? pct(a.ofMatrix) : std::string("unknown")}, matrixPeakMethod());
      ImGui::EndTable();
    }
    if (!gpu) note(rec, "a CPU variant: the GPU's roofs do not apply");
  }
  if (roofs_.bandwidthGBs > 0 || roofs_.fp32GFlops > 0) {
    std::string t =
        "roofs measured at start: copy " + bandwidthText(roofs_.bandwidthGBs) + ", FP32 " + rateText(roofs_.fp32GFlops);
    t += roofs_.matrixGFlops > 0 ? ", mma.sync " + rateText(roofs_.matrixGFlops) : ", no mma.sync figure";
    note(rec, t);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", fp32PeakMethod(), matrixPeakMethod());
  } else {
    const DeviceInfo& dev = deviceInfo();
    note(rec, dev.available ? "the device's roofs could not be measured: " + deviceRoofs().why
                            : "no CUDA device: no measured roofs (copy bandwidth, FP32 and matrix peaks); the "
                              "launch and work-model figures above are arithmetic");
  }
  rec.inspector = lastItemRect(top);
}

void InspectorPanel::rooflineSection(PanelRecord& rec) {
  const float top = ImGui::GetCursorScreenPos().y;
  // Without a device there are no GPU roofs to measure the CPU variants against wrongly: they are
  // plotted, so the chart still compares what ran.
  const bool withCpu = !deviceInfo().available;
  const RooflineChart chart(roofs_, inspector_.rooflinePoints(withCpu));
  const std::string noRoofs =
      withCpu ? "no CUDA device: no measured roofs; the CPU variants' points" : "roofs not measured";
  const RooflineDrawn drawn = drawRoofline(chart, ImGui::GetTextLineHeight() * 16, noRoofs);
  rec.rooflinePoints = drawn.pointsDrawn;
  ImGui::TextColored(ImVec4(1, 0.67f, 0.24f, 1), "FP32 variants");
  ImGui::SameLine();
  ImGui::TextColored(ImVec4(0.78f, 0.47f, 1, 1), "tensor-core variants (mma.sync roof)");
  if (withCpu) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(0.43f, 0.75f, 1, 1), "CPU");
  }
  if (chart.points().empty())
    note(rec,
         "no variant timed at this filter and size yet: the running one appears after a few frames, Compare "
         "times them all");
  if (!chart.points().empty() &&
      ImGui::BeginTable("points", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("variant");
    ImGui::TableSetupColumn("FLOP/B");
    ImGui::TableSetupColumn("GFLOP/s");
    ImGui::TableSetupColumn("roof");
    ImGui::TableHeadersRow();
    for (const RooflinePoint& p : chart.points()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (p.highlighted)
        ImGui::TextColored(ImVec4(1, 1, 1, 1), "%s *", p.label.c_str());
      else
        ImGui::TextUnformatted(p.label.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fig(p.intensity).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fig(p.gflops).c_str());
      ImGui::TableNextColumn();
      const Bound b = chart.bound(p);
      const std::string where =
          b == Bound::Unknown ? "-" : pct(chart.shareOfRoof(p)) + (b == Bound::Memory ? " mem" : " comp");
      ImGui::TextUnformatted(where.c_str());
      if (ImGui::IsItemHovered() && b != Bound::Unknown)
        ImGui::SetTooltip("%s: %s of the roof above it", boundName(b), pct(chart.shareOfRoof(p)).c_str());
    }
    ImGui::EndTable();
  }
  if (const auto cpu = inspector_.cpuTimed(); !cpu.empty() && !withCpu) {
    std::string names;
    for (const std::string& n : cpu) names += (names.empty() ? "" : ", ") + n;
    note(rec, "not on the chart (CPU variants; the roofs are the GPU's): " + names);
  }
  rec.roofline = lastItemRect(top);
  rec.roofline.y = drawn.plot.y;
  rec.roofline.x = drawn.plot.x;
  rec.roofline.w = drawn.plot.w;
  rec.roofline.h = drawn.plot.h;
}

void InspectorPanel::compareSection(PanelRecord& rec) {
  const float top = ImGui::GetCursorScreenPos().y;
  const CompareState st = inspector_.compare();
  const RunKey& key = inspector_.runKey();
  ImGui::Checkbox("pause the video while timing", &pauseVideo_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("the live filter shares the GPU: while it plays, its kernels run between the timed ones");
  const bool busy = st.running || inspector_.waitingForPause();
  const std::string refusal = inspector_.compareRefusal();
  ImGui::BeginDisabled(busy || key.width <= 0 || !refusal.empty());
  char label[96];
  std::snprintf(label, sizeof label, "Time every variant on %dx%d", key.width, key.height);
  if (ImGui::Button(label)) inspector_.requestCompare(pauseVideo_);
  rec.compareButton = {ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y, ImGui::GetItemRectSize().x,
                       ImGui::GetItemRectSize().y};
  ImGui::EndDisabled();
  if (busy) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel##compare")) inspector_.cancelCompare();
    char progress[96];
    if (inspector_.waitingForPause())
      std::snprintf(progress, sizeof progress, "pausing the video");
    else
      std::snprintf(progress, sizeof progress, "%d/%d %s", int(st.rows.size()), st.total, st.current.c_str());
    ImGui::ProgressBar(st.total > 0 ? float(st.rows.size()) / float(st.total) : 0.f, ImVec2(-1, 0), progress);
  }
  const std::vector<CompareLine> lines = compareLines(st.rows, key.width, key.height);
  rec.compareLines = int(lines.size());
  if (!lines.empty() && ImGui::BeginTable("compare", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("variant");
    ImGui::TableSetupColumn("tile");
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("MPix/s");
    ImGui::TableSetupColumn("x best");
    ImGui::TableHeadersRow();
    for (const CompareLine& l : lines) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (l.best)
        ImGui::TextColored(kBest, "%s", l.variant.c_str());
      else
        ImGui::TextUnformatted(l.variant.c_str());
      if (!l.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.note.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(l.tile == Tile{} ? "-" : l.tile.str().c_str());
      if (!l.measured) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", l.note.c_str());
        continue;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.3f%s", l.ms, l.note.empty() ? "" : "*");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fig(l.mpixPerS).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", l.toBest);
    }
    ImGui::EndTable();
  }
  bool capped = false;
  for (const CompareLine& l : lines) capped |= l.measured && !l.note.empty();
  if (capped)
    note(rec, "* CPU variants: " + std::to_string(cpuTimingRuns(key.width, key.height)) +
                  " run(s) each at this size (they are slow); the GPU variants: the median of " +
                  std::to_string(kGpuTimingRuns));
  if (!refusal.empty()) note(rec, "not for these frames: " + refusal);
  if (!inspector_.notTimed().empty()) {
    std::string names;
    for (const std::string& n : inspector_.notTimed()) names += (names.empty() ? "" : ", ") + n;
    note(rec, "no CUDA device: not timed: " + names);
  }
  if (st.finished && !pauseVideo_) note(rec, "timed while the video played: the live filter shared the GPU");
  rec.compare = lastItemRect(top);
}

}  // namespace convlive
