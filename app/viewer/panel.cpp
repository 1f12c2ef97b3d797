#include "panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "convlive/resources.hpp"
#include "inspector_panel.hpp"
#include "words.hpp"

namespace convlive {
namespace {

const char* kSizes[] = {"640x360", "1280x720", "1920x1080", "2560x1440", "3840x2160", "801x601"};

// Text of `text` in `colour` that wraps at the panel's edge (ImGui's TextColored does not wrap).
void wrappedColoured(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::PushTextWrapPos(0.f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void tooltip(const std::string& text) {
  if (!text.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text.c_str());
}

// One combo over a list of strings; true when the choice changed.
bool combo(const char* label, const std::vector<std::string>& items, std::string& value) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value.c_str())) {
    for (const std::string& item : items) {
      const bool selected = item == value;
      if (ImGui::Selectable(item.c_str(), selected)) {
        changed = item != value;
        value = item;
      }
      if (selected) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

}  // namespace

std::string clockText(double s) {
  if (s < 0) return "--:--";
  char b[32];
  const int m = int(s) / 60;
  std::snprintf(b, sizeof b, "%d:%05.2f", m, s - 60 * m);
  return b;
}

float plotScaleMax(const std::vector<float>& history) {
  if (history.empty()) return 1.f;
  std::vector<float> v = history;
  const std::size_t k = std::min(v.size() - 1, v.size() * 95 / 100);
  std::nth_element(v.begin(), v.begin() + long(k), v.end());
  const float p95 = v[k];
  const float top = *std::max_element(v.begin(), v.end());
  // Show every value when the largest is not far above the rest; else let a few spikes clip.
  const float scale = top <= 2 * p95 ? top * 1.1f : p95 * 1.5f;
  return std::max(scale, 0.01f);
}

struct Panel::State {
  std::string pattern = "moving";
  int sizeIndex = 1;
  int fps = 30;
  char path[1024] = {};
  char launch[1024] = "videotestsrc pattern=ball ! video/x-raw,width=1280,height=720 ! videoconvert ! appsink";
  std::vector<CameraInfo> cameras;
  bool camerasListed = false;
  // The custom mask's grid, edited in place and sent as text (gridText: the text last sent or shown).
  int gridRadius = 1;
  std::vector<float> grid = std::vector<float>(9, 0.f);
  std::string gridText;
  // The weights file's path as typed, and the spec's path it was last filled from.
  char weightsPath[1024] = {};
  std::string weightsPathShown;
  int plotStage = int(Stage::Filter);
  bool loop = false;
  bool started = false;
  float plotRect[4] = {};  // where the timing plot was drawn (x, y, w, h in ImGui units)
  InspectorPanel inspector;
  PanelRecord record;
  std::vector<std::string> openAtStart = sectionsToOpen();
};

Panel::Panel() : s_(std::make_unique<State>()) { s_->grid[4] = 1.f; }
Panel::~Panel() = default;

PanelRect Panel::plotRect() const { return {s_->plotRect[0], s_->plotRect[1], s_->plotRect[2], s_->plotRect[3]}; }
const PanelRecord& Panel::record() const { return s_->record; }

namespace {
thread_local PanelRecord lastRecord;
}  // namespace

const PanelRecord& lastPanelRecord() { return lastRecord; }

std::vector<std::string> sectionsToOpen() {
  std::vector<std::string> names;
  const char* env = std::getenv("CONVLIVE_PANEL_OPEN");
  std::istringstream in(env ? env : "");
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

namespace {

void sourceSection(PanelModel& m, auto& s) {
  const PanelFacts& f = m.facts();
  const SourceInfo& si = f.source;
  ImGui::TextWrapped("%s", si.description.c_str());
  if (ImGui::TreeNode("Test pattern")) {
    static const std::vector<std::string> patterns = testPatterns();
    combo("pattern", patterns, s.pattern);
    ImGui::Combo("size", &s.sizeIndex, kSizes, int(std::size(kSizes)));
    ImGui::SliderInt("fps", &s.fps, 1, 120);
    if (ImGui::Button("Play pattern")) {
      const auto size = Tile::parse(kSizes[s.sizeIndex]);
      m.openSource(SourceSpec::testPattern(s.pattern, size->w, size->h, s.fps));
    }
    ImGui::TreePop();
  }
  if (f.focusPath) ImGui::SetNextItemOpen(true);
  if (ImGui::TreeNode("File or URI")) {
    if (f.focusPath) ImGui::SetKeyboardFocusHere();
    // Enter in the box opens what was typed, as the button does.
    const bool entered = ImGui::InputTextWithHint("##path", "/path/to/video.webm or https://...", s.path, sizeof s.path,
                                                  ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    const bool clicked = ImGui::Button("Open");
    if ((entered || clicked) && s.path[0]) m.openSource(SourceSpec::input(s.path));
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("Camera")) {
    if (!s.camerasListed || ImGui::Button("Look again")) {
      s.cameras = listCameras();
      s.camerasListed = true;
    }
    if (s.cameras.empty()) ImGui::TextDisabled("no camera found (V4L2)");
    for (const CameraInfo& c : s.cameras) {
      if (ImGui::Button((c.name + " (" + c.device + ")").c_str())) m.openSource(SourceSpec::camera(c.device));
    }
    ImGui::TreePop();
  }
  if (ImGui::TreeNode("Launch line")) {
    ImGui::InputTextMultiline("##launch", s.launch, sizeof s.launch, ImVec2(-1, ImGui::GetTextLineHeight() * 3));
    if (ImGui::Button("Run launch line")) m.openSource(SourceSpec::launch(s.launch));
    ImGui::TreePop();
  }
  // Transport.
  if (ImGui::Button(f.paused ? "Play" : "Pause")) m.apply(Action::TogglePause);
  ImGui::SameLine();
  if (ImGui::Checkbox("loop", &s.loop)) m.setLoop(s.loop);
  if (si.seekable && si.durationSeconds > 0) {
    float pos = float(f.positionSeconds);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::SliderFloat("##seek", &pos, 0.f, float(si.durationSeconds),
                           (clockText(f.positionSeconds) + " / " + clockText(si.durationSeconds)).c_str()))
      m.seek(pos);
  } else {
    ImGui::TextDisabled("%s  (%s)", clockText(f.positionSeconds).c_str(), si.live ? "live" : "no seeking");
  }
  if (f.ended) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "end of stream (loop or seek to play again)");
}

// One widget for one setting of the spec, generated from its description (convlive/spec.hpp).
// Returns the setting's new text when the user changed it.
std::optional<std::string> settingWidget(const Setting& st, const FilterSpec& spec) {
  const std::string value = spec.get(st.name);
  std::optional<std::string> out;
  const char* label = st.label.c_str();
  switch (st.type) {
    case Setting::Type::Choice: {
      std::string v = value;
      if (combo(label, st.choices, v)) out = v;
      break;
    }
    case Setting::Type::Int: {
      int i = std::stoi(value);
      if (ImGui::SliderInt(label, &i, std::max(1, int(st.min)), int(st.max))) out = std::to_string(i);
      break;
    }
    case Setting::Type::Float: {
      // sigma has "auto" (the default for the radius): a checkbox beside the slider.
      const bool isAuto = value == "auto";
      float f = isAuto ? defaultGaussianSigma(spec.radius) : std::stof(value);
      if (st.name == "sigma") {
        bool autoOn = isAuto;
        if (ImGui::Checkbox("auto##sigma", &autoOn)) out = autoOn ? "auto" : std::to_string(f);
        tooltip("auto: 0.3*(r-1)+0.8, OpenCV's default for the radius");
        ImGui::SameLine();
        ImGui::BeginDisabled(isAuto);
      }
      if (ImGui::SliderFloat(label, &f, float(st.min), float(st.max), "%.2f")) out = std::to_string(f);
      if (st.name == "sigma") ImGui::EndDisabled();
      break;
    }
    case Setting::Type::Flag: {
      bool b = value == "true";
      if (ImGui::Checkbox(label, &b)) out = b ? "true" : "false";
      break;
    }
    case Setting::Type::Text: {
      char buf[4096];
      std::snprintf(buf, sizeof buf, "%s", value.c_str());
      if (ImGui::InputText(label, buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue)) out = buf;
      break;
    }
  }
  tooltip(st.help);
  return out;
}

std::string gridText(const auto& s) {
  const int n = 2 * s.gridRadius + 1;
  std::ostringstream w;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) w << (x ? "," : "") << s.grid[std::size_t(y * n + x)];
    if (y + 1 < n) w << ";";
  }
  return w.str();
}

// The custom mask's grid: up to 7x7 cells, filled from the spec's weights when they fit (the
// command line's weights show), else from the last grid; edits are sent back as text.
void customGrid(PanelModel& v, auto& s, const FilterSpec& spec) {
  if (spec.weights != s.gridText) {  // weights that came from elsewhere: show them
    try {
      const Mask m = parseCustomMask(spec.weights, false);
      if (m.radius() <= 3) {
        s.gridRadius = m.radius();
        s.grid = m.weights();
      }
    } catch (const std::exception&) {
    }
    s.gridText = spec.weights;
  }
  int radius = s.gridRadius;
  bool changed = ImGui::SliderInt("grid radius", &radius, 0, 3);
  const int n = 2 * radius + 1;
  if (radius != s.gridRadius || int(s.grid.size()) != n * n) {
    s.gridRadius = radius;
    s.grid.assign(std::size_t(n * n), 0.f);
    s.grid[std::size_t(n * n / 2)] = 1.f;
    changed = true;
  }
  ImGui::PushItemWidth(std::max(30.f, (ImGui::GetContentRegionAvail().x - 8 * n) / n));
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      ImGui::PushID(y * n + x);
      if (x) ImGui::SameLine();
      changed |= ImGui::DragFloat("##w", &s.grid[std::size_t(y * n + x)], 0.05f, -64.f, 64.f, "%.2f");
      ImGui::PopID();
    }
  }
  ImGui::PopItemWidth();
  if (!changed && !spec.weights.empty()) return;
  s.gridText = gridText(s);
  v.say(v.filter().set("weights", s.gridText));
}

// Whether the custom mask's weights come from the grid (not a file, not row/column factors).
bool usesGrid(const FilterSpec& spec) {
  return spec.weightsFile.empty() && spec.rowWeights.empty() && spec.colWeights.empty();
}

// Applies `next` and says the outcome (`done` on success).
void applyAndSay(PanelModel& v, const FilterSpec& next, const std::string& done) {
  const std::string why = v.filter().apply(next);
  v.say(why.empty() ? done : why);
}

// The weights file: a path and a Load button (Enter loads too; Load again re-reads the file after
// it was edited). Loading gives the custom mask its weights from the file alone; Clear goes back
// to the grid.
void weightsFileWidget(PanelModel& v, auto& s, const Setting& st, const FilterSpec& spec) {
  if (spec.weightsFile != s.weightsPathShown) {  // set elsewhere (the command line): show it
    std::snprintf(s.weightsPath, sizeof s.weightsPath, "%s", spec.weightsFile.c_str());
    s.weightsPathShown = spec.weightsFile;
  }
  ImGui::TextUnformatted(st.label.c_str());
  const bool entered = ImGui::InputTextWithHint("##weightsfile", "mask.txt, mask.csv or mask.npy", s.weightsPath,
                                                sizeof s.weightsPath, ImGuiInputTextFlags_EnterReturnsTrue);
  tooltip(st.help);
  ImGui::SameLine();
  const bool load = ImGui::Button("Load##weightsfile");
  tooltip("read the file now (again after you edit it)");
  if ((entered || load) && s.weightsPath[0]) {
    FilterSpec next = spec;
    next.weights.clear();
    next.rowWeights.clear();
    next.colWeights.clear();
    if (const Problem why = next.set(st.name, s.weightsPath))
      v.say(forPanel(why));
    else
      applyAndSay(v, next, "custom weights from '" + next.weightsFile + "'");
  }
  if (!spec.weightsFile.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Clear##weightsfile")) {
      FilterSpec next = spec;
      next.weightsFile.clear();
      if (usesGrid(next)) next.weights = gridText(s);
      applyAndSay(v, next, "");
    }
  }
}

// The filter's settings, each widget generated from the spec's setting table; those that do not
// apply to the current mask are left out. Variant and tile live in the Kernel section. The custom
// mask's weights come one way at a time: the grid, a file, or row and column factors; giving one
// way clears the others.
void filterSection(PanelModel& v, auto& s) {
  FilterController& fc = v.filter();
  const FilterSpec spec = fc.applied();
  for (const Setting& st : specSettings()) {
    if (st.name == "variant" || st.name == "tile" || !st.appliesTo(spec.mask)) continue;
    if (st.name == "weights") {
      if (usesGrid(spec))
        customGrid(v, s, spec);
      else
        ImGui::TextDisabled("grid unused: the weights come from %s",
                            spec.weightsFile.empty() ? "the row and column factors" : "the file");
      continue;
    }
    if (st.name == "weights-file") {
      weightsFileWidget(v, s, st, spec);
      continue;
    }
    if (st.name == "radius" && spec.mask == "scharr") {
      ImGui::TextDisabled("radius 1 (scharr is 3x3)");
      continue;
    }
    if (const auto value = settingWidget(st, spec)) {
      FilterSpec next = spec;
      if (st.name == "mask" && *value == "scharr") next.radius = 1;
      if (st.name == "mask" && *value == "custom" && next.weights.empty() && usesGrid(next)) next.weights = gridText(s);
      if (const Problem why = next.set(st.name, *value)) {
        v.say(forPanel(why));
        continue;
      }
      if (st.name == "row-weights" || st.name == "col-weights") {  // factors replace the grid and the file
        next.weightsFile.clear();
        next.weights = usesGrid(next) ? gridText(s) : "";
      }
      v.say(fc.apply(next));
    }
  }
}

void kernelSection(PanelModel& v) {
  FilterController& fc = v.filter();
  const Variant* running = fc.running();
  FilterSpec next = fc.applied();
  if (ImGui::RadioButton("auto (the fastest that can run)", next.variant == "auto")) {
    next.variant = "auto";
    next.tile = {};
    v.say(fc.apply(next));
  }
  int column = 0, w = 0, h = 0;
  fc.frameSize(w, h);
  const float third = ImGui::GetContentRegionAvail().x / 3;
  for (const Variant& var : variants()) {
    const std::string why = forPanel(fc.whyNot(var, w, h));
    if (const int c = column++ % 3) ImGui::SameLine(third * float(c) + ImGui::GetStyle().WindowPadding.x);
    ImGui::BeginDisabled(!why.empty());
    if (ImGui::RadioButton(var.name.c_str(), next.variant == var.name)) {
      next.variant = var.name;
      next.tile = {};
      v.say(fc.apply(next));
    }
    ImGui::EndDisabled();
    tooltip(why.empty() ? var.description : "cannot run: " + why);
  }
  if (running) {
    ImGui::Text("running: %s", running->name.c_str());
    if (const std::string why = fc.autoChoice(); !why.empty()) ImGui::TextWrapped("auto %s", why.c_str());
    if (const std::string why = fc.greyExpandedWhy(); !why.empty())
      ImGui::TextWrapped("grey frames are expanded to RGBA8 (8 bits) before this variant: %s", why.c_str());
    if (running->tiles.size() > 1) {
      const Tile current = fc.runningTile();
      if (ImGui::BeginCombo(("tile (" + running->tileMeaning + ")").c_str(), current.str().c_str())) {
        for (const Tile& t : running->tiles) {
          if (ImGui::Selectable(t.str().c_str(), t == current)) {
            FilterSpec n2 = fc.applied();
            n2.variant = running->name;
            n2.tile = t;
            v.say(fc.apply(n2));
          }
        }
        ImGui::EndCombo();
      }
    } else {
      ImGui::TextDisabled("no tile choice for %s", running->name.c_str());
    }
  }
}

void timingsSection(PanelModel& m, auto& s) {
  const PanelFacts& f = m.facts();
  const Timings& t = f.timings;
  const SourceInfo& si = f.source;
  const DeviceInfo& dev = deviceInfo();
  ImGui::Text("%s", dev.available ? dev.name.c_str() : "no CUDA device: the CPU variants run");
  ImGui::Text("frame %dx%d filtered as %s (source %s %dx%d)", t.width, t.height,
              t.filteredAs.empty() ? "RGBA8" : t.filteredAs.c_str(), si.nativeFormat.c_str(), si.nativeWidth,
              si.nativeHeight);
  if (!si.depthNote.empty()) ImGui::TextWrapped("%s", si.depthNote.c_str());
  ImGui::Text("%.1f fps   %.1f MPix/s", t.fps, t.mpixPerSecond);
  if (f.pace.behind) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "the filter is behind: %.0f ms a frame (%.1f s since the last one); the newest finished frame is "
                  "shown",
                  f.pace.lastFilterMs, f.pace.waitingMs / 1000);
    wrappedColoured(ImVec4(1, 0.8f, 0.3f, 1), line);
  }
  if (f.copyGBs > 0)
    ImGui::Text("filter %.0f GB/s = %.0f%% of the copy bandwidth (%.0f GB/s)", t.filterGBs,
                100 * t.filterGBs / f.copyGBs, f.copyGBs);
  else
    ImGui::Text("filter %.1f GB/s", t.filterGBs);
  if (ImGui::BeginTable("stages", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("ms");
    ImGui::TableSetupColumn("last");
    ImGui::TableSetupColumn("avg");
    ImGui::TableSetupColumn("peak");
    ImGui::TableHeadersRow();
    auto row = [](const StageStats& st) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(st.name().c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.last());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.average());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", st.peak());
    };
    for (const StageStats& st : t.stages) row(st);
    for (const StageStats& st : f.viewerStages) row(st);
    ImGui::EndTable();
  }
  std::vector<const StageStats*> all;
  std::vector<std::string> names;
  for (const StageStats& st : t.stages) all.push_back(&st);
  for (const StageStats& st : f.viewerStages) all.push_back(&st);
  for (const StageStats* st : all) names.push_back(st->name());
  if (all.empty()) return;
  s.plotStage = std::clamp(s.plotStage, 0, int(names.size()) - 1);
  std::string chosen = names[std::size_t(s.plotStage)];
  if (combo("plot", names, chosen)) s.plotStage = int(std::find(names.begin(), names.end(), chosen) - names.begin());
  const StageStats& st = *all[std::size_t(s.plotStage)];
  const std::vector<float> h = st.history();
  const float top = plotScaleMax(h);
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%s %.3f ms (top of the plot %.3f ms)", st.name().c_str(), st.last(), top);
  // The size in pixels: ImGui 1.86's plots do not take -1 as "the rest of the width" (they drew a
  // -1 pixel wide sliver). A real height in the panel's units, so it scales with the font.
  const ImVec2 size(std::max(40.f, ImGui::GetContentRegionAvail().x), ImGui::GetTextLineHeightWithSpacing() * 6);
  ImGui::PlotLines("##plot", h.data(), int(h.size()), 0, overlay, 0.f, top, size);
  s.plotRect[0] = ImGui::GetItemRectMin().x;
  s.plotRect[1] = ImGui::GetItemRectMin().y;
  s.plotRect[2] = ImGui::GetItemRectSize().x;
  s.plotRect[3] = ImGui::GetItemRectSize().y;
  ImGui::TextWrapped("display: %s", f.presentPath.c_str());
  ImGui::TextWrapped("memory: %s", f.memoryMode.c_str());
}

}  // namespace

void Panel::draw(PanelModel& m, float width) {
  State& s = *s_;
  const PanelFacts& f = m.facts();
  const bool first = !s.started;
  if (first) {
    s.started = true;
    s.loop = f.loop;
  }
  s.record = PanelRecord{};
  s.inspector.update(m);  // sections open or not: the live times go into its book
  // A collapsing header; at the first draw, when CONVLIVE_PANEL_OPEN is set, open if it names it
  // and closed if not.
  const auto header = [&](const char* name, ImGuiTreeNodeFlags flags = 0) {
    if (first && !s.openAtStart.empty())
      ImGui::SetNextItemOpen(std::find(s.openAtStart.begin(), s.openAtStart.end(), name) != s.openAtStart.end());
    const bool open = ImGui::CollapsingHeader(name, flags);
    if (open) s.record.sectionsOpen.push_back(name);
    return open;
  };
  const ImGuiIO& io = ImGui::GetIO();
  if (f.panelShown) {
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - width, 0));
    ImGui::SetNextWindowSize(ImVec2(width, io.DisplaySize.y));
    ImGui::Begin("convlive", nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    // Both wrap at the panel's edge: a path or a GStreamer message is often wider than the panel.
    if (!f.sourceError.empty()) wrappedColoured(ImVec4(1, 0.45f, 0.4f, 1), f.sourceError);
    // The status line and the source being opened come and go: they sit in a box of three lines'
    // height, there or not, so that the widgets below stay under the cursor.
    ImGui::BeginChild("status", ImVec2(0, 3 * ImGui::GetTextLineHeightWithSpacing()), false,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    if (!f.status.empty()) wrappedColoured(ImVec4(1, 0.8f, 0.3f, f.statusOpacity), f.status);
    if (!f.opening.what.empty()) {  // the current source plays on until the new one delivers
      char line[64];
      std::snprintf(line, sizeof line, " (%.1f s)", f.opening.secondsWaiting);
      wrappedColoured(ImVec4(0.6f, 0.8f, 1, 1), "opening " + f.opening.what + line);
    }
    ImGui::EndChild();
    if (header("Source", ImGuiTreeNodeFlags_DefaultOpen)) sourceSection(m, s);
    if (header("Filter", ImGuiTreeNodeFlags_DefaultOpen)) filterSection(m, s);
    if (header("Kernel", ImGuiTreeNodeFlags_DefaultOpen)) kernelSection(m);
    if (header("Timings", ImGuiTreeNodeFlags_DefaultOpen)) timingsSection(m, s);
    if (header("Inspector")) s.inspector.inspectorSection(s.record);
    if (header("Roofline")) s.inspector.rooflineSection(s.record);
    if (header("Compare")) s.inspector.compareSection(s.record);
    if (header("View and keys")) {
      int mode = int(f.fitMode);
      const char* modes[] = {"fit", "fill", "1:1"};
      if (ImGui::Combo("view", &mode, modes, 3)) m.setView(FitMode(mode), f.split);
      bool split = f.split;
      if (ImGui::Checkbox("split view (original | filtered)", &split)) m.setView(f.fitMode, split);
      for (const KeyHelp& k : keyHelp()) ImGui::BulletText("%s: %s", k.keys, k.what);
    }
    ImGui::End();
  }
  if (f.helpShown) {
    bool open = true;
    ImGui::SetNextWindowPos(ImVec2(20, 20), ImGuiCond_FirstUseEver);
    ImGui::Begin("Keys", &open, ImGuiWindowFlags_AlwaysAutoResize);
    for (const KeyHelp& k : keyHelp()) ImGui::Text("%-14s %s", k.keys, k.what);
    ImGui::End();
    if (!open) m.setHelpShown(false);
  }
  lastRecord = s.record;
}

}  // namespace convlive
