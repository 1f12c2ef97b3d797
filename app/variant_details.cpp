#include "variant_details.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "convlive/atomic_file.hpp"
#include "convlive/inspect.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "still.hpp"
#include "words.hpp"

namespace convlive {
namespace {

using nlohmann::json;

// A figure in about three significant digits: 1234, 12.3, 1.23, 0.12.
std::string num(double v) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  const double a = std::fabs(v);
  o.precision(a >= 100 || v == std::floor(v) ? 0 : a >= 10 ? 1 : 2);
  o << v;
  return o.str();
}
std::string percent(double share) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  const double p = std::round(share * 1000) / 10;
  o.precision(p == std::floor(p) ? 0 : 1);
  o << p << "%";
  return o.str();
}
std::string kib(std::size_t bytes) { return bytes == 0 ? "0" : num(bytes / 1024.0) + "K"; }

const char* shortLimiter(const std::string& limiter) {
  if (limiter.find(" and ") != std::string::npos) return "tie";
  if (limiter == "registers") return "regs";
  if (limiter == "shared memory") return "smem";
  if (limiter == "threads") return "thr";
  return "blk";
}

struct Column {
  const char* title;
  int width;
};
constexpr Column kColumns[] = {{"variant", 14}, {"tile", 7},      {"grid", 10},        {"block", 7},    {"px/thr", 7},
                               {"smem", 7},     {"regs/occ", 14}, {"loads/px", 9},     {"smemB/px", 9}, {"apron", 6},
                               {"idle", 6},     {"FLOP/px", 8},   {"mma FLOP/px", 18}, {"FLOP/B", 7},   {"ms", 8}};
constexpr int kColumnCount = sizeof(kColumns) / sizeof(kColumns[0]);
using Row = std::vector<std::string>;

void printRow(std::ostream& out, const Row& cells) {
  std::string line;
  for (int i = 0; i < kColumnCount && i < int(cells.size()); ++i) {
    std::string c = cells[i];
    if (i + 1 < int(cells.size())) c.resize(std::max<std::size_t>(c.size() + 1, kColumns[i].width), ' ');
    line += c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << "\n";
}

// The launch columns of one pass.
void launchCells(Row& row, const PassLaunch& p, const PassResources& r) {
  row[2] = p.grid.str();
  row[3] = p.block.str();
  row[4] = num(p.outputsPerThread);
  row[5] = kib((r.available ? r.staticShared : p.staticShared) + p.dynamicShared);
  row[6] = r.available ? std::to_string(r.registers) + " " + percent(r.occupancy) + " " + shortLimiter(r.limiter) : "-";
}

void modelCells(Row& row, const WorkModel& m) {
  row[7] = num(m.globalReads);
  row[8] = num(m.sharedBytes);
  row[9] = num(m.apron);
  row[10] = percent(m.idleThreads);
  row[11] = num(m.flops);
  row[12] = m.matrixFlops > 0 ? num(m.matrixFlops) + " (" + percent(m.matrixWaste()) + " zeros)" : "-";
  row[13] = num(m.intensity());
}

std::string timeCell(const Timing& t) {
  if (!t.measured) return "-";
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(t.ms >= 100 ? 0 : t.ms >= 10 ? 1 : t.ms >= 1 ? 2 : 4);
  o << t.ms;
  return o.str();
}

// The variant's rows: one when it has one launch, else a row for the variant then one a pass.
void printVariant(std::ostream& out, const VariantInspection& in, const Timing& t) {
  const Variant& v = *in.variant;
  Row row(kColumnCount);
  row[0] = v.name;
  row[1] = v.tiles.empty() ? "-" : in.tile.str();
  if (!in.hasFigures()) {
    row.resize(3);
    row[2] = "cannot run: " + forCommandLine(in.why);
    printRow(out, row);
    return;
  }
  modelCells(row, in.model);
  row[14] = timeCell(t);
  const auto& passes = in.launch.passes;
  if (passes.empty()) {
    row[2] = "(CPU)";
    for (int i = 3; i <= 6; ++i) row[i] = "-";
  } else if (passes.size() == 1) {
    launchCells(row, passes[0], in.resources[0]);
  }
  printRow(out, row);
  if (passes.size() < 2) return;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    Row pass(7);
    pass[0] = "  " + passes[i].pass;
    launchCells(pass, passes[i], in.resources[i]);
    printRow(out, pass);
  }
}

std::vector<std::string> notesOf(const VariantInspection& in) {
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < in.launch.passes.size(); ++i) {
    const PassLaunch& p = in.launch.passes[i];
    const std::string pass = p.pass.empty() ? "" : p.pass + ": ";
    if (!p.note.empty()) notes.push_back(pass + p.note);
    if (in.resources[i].localBytes > 0)
      notes.push_back(pass + std::to_string(in.resources[i].localBytes) + " bytes a thread in local memory (spills)");
  }
  notes.insert(notes.end(), in.model.notes.begin(), in.model.notes.end());
  return notes;
}

void printLegend(std::ostream& out, const ImageDesc& image) {
  out << "\nPer output pixel, for an interior tile:\n"
         "  loads/px     reads of input pixels (or intermediate values) from global memory\n"
         "  smemB/px     bytes read from shared memory\n"
         "  apron        input values staged per value made (1: no apron), the mean over the passes\n"
         "  idle         threads that make no output while the others compute\n"
         "  FLOP/px      FP32 FLOPs, a multiply-add counted as 2\n"
         "  mma FLOP/px  tensor-core FLOPs, and the share spent on the Toeplitz band's zeros\n"
         "  FLOP/B       FLOPs per DRAM byte ("
      << 2 * image.pixelBytes()
      << " bytes a pixel read and written, plus intermediate planes)\n"
         "Per launch: px/thr outputs a thread makes; smem shared memory a block; regs/occ registers a\n"
         "thread, occupancy and what limits it (regs, smem, thr = threads, blk = blocks per SM).\n"
         "ms: the median time on a random frame of this size.\n";
}

json passJson(const PassLaunch& p, const PassResources& r) {
  json j{{"pass", p.pass},
         {"kernel", p.kernel},
         {"grid", {p.grid.x, p.grid.y, p.grid.z}},
         {"block", {p.block.x, p.block.y, p.block.z}},
         {"threads_per_block", p.threadsPerBlock},
         {"outputs_per_thread", p.outputsPerThread},
         {"output_tile", {p.outputTile.x, p.outputTile.y}},
         {"input_tile", {p.inputTile.x, p.inputTile.y}},
         {"input_offset", {p.inputOffsetX, p.inputOffsetY}},
         {"static_shared_bytes", r.available ? r.staticShared : p.staticShared},
         {"dynamic_shared_bytes", p.dynamicShared},
         {"note", p.note}};
  if (r.available)
    j.update({{"registers", r.registers},
              {"local_bytes", r.localBytes},
              {"blocks_per_sm", r.blocksPerSm},
              {"occupancy", r.occupancy},
              {"limited_by", r.limiter}});
  else
    j["runtime"] = r.why;
  return j;
}

json modelJson(const WorkModel& m) {
  return {{"global_reads", m.globalReads},
          {"global_bytes", m.globalBytes},
          {"shared_bytes", m.sharedBytes},
          {"apron", m.apron},
          {"idle_threads", m.idleThreads},
          {"flops", m.flops},
          {"matrix_flops", m.matrixFlops},
          {"matrix_useful_flops", m.matrixUseful},
          {"dram_bytes", m.dramBytes},
          {"flop_per_byte", m.intensity()},
          {"notes", m.notes}};
}

json variantJson(const VariantInspection& in, const Timing& t, int width, int height) {
  json j{{"variant", in.variant->name}, {"tile", in.variant->tiles.empty() ? json(nullptr) : json(in.tile.str())}};
  if (!in.hasFigures()) {
    j["cannot_run"] = forCommandLine(in.why);
    return j;
  }
  j["passes"] = json::array();
  for (std::size_t i = 0; i < in.launch.passes.size(); ++i)
    j["passes"].push_back(passJson(in.launch.passes[i], in.resources[i]));
  if (in.launch.passes.empty()) j["launch"] = in.launch.none;
  j["model"] = modelJson(in.model);
  if (t.measured) {
    const Achieved a = achieved(in.model, width, height, t.ms);
    j["time"] = {
        {"median_ms", t.ms}, {"runs", t.runs}, {"mpix_s", a.mpixPerS}, {"gb_s", a.gbPerS}, {"gflop_s", a.gflopPerS}};
  } else {
    j["time"] = nullptr;
  }
  return j;
}

// "u16x1" -> the frames of that type and channel count at w x h; nullopt for anything else.
std::optional<ImageDesc> framesNamed(const std::string& name, int w, int h) {
  for (PixelType t : {PixelType::U8, PixelType::U16, PixelType::F16, PixelType::F32})
    for (int c : {1, 3, 4})
      if (const ImageDesc d{.width = w, .height = h, .type = t, .channels = c}; d.typeName() == name) return d;
  return std::nullopt;
}

}  // namespace

int listVariantDetails(const VariantDetailsOptions& o, std::ostream& out, std::ostream& err) {
  const auto size = Tile::parse(o.size);
  if (!size) throw std::invalid_argument("--size '" + o.size + "' is not WxH (for example 1920x1080)");
  const std::optional<ImageDesc> image = framesNamed(o.frames, size->w, size->h);
  if (!image)
    throw std::invalid_argument("--frames '" + o.frames +
                                "' is not a pixel type and channel count: u8, u16, f16 or f32, x 1, 3 or 4 "
                                "(u8x4 is RGBA8; for example u16x1 for 16-bit grey)");
  const bool rgba8 = image->isRgba8();
  const FilterParams p = o.spec.params();
  std::vector<const Variant*> chosen;
  for (const Variant& v : variants())
    if (o.spec.variant == "auto" || v.name == o.spec.variant) chosen.push_back(&v);
  if (chosen.empty()) chosen.push_back(&variantNamed(o.spec.variant));  // throws: unknown

  const DeviceInfo& dev = deviceInfo();
  out << "device: " << (dev.available ? dev.name : dev.reason) << "\n";
  out << "filter: " << o.spec.describe() << " on " << size->str() << (rgba8 ? "" : " " + o.frames + " frames") << "\n";
  out << "mask: " << describeRank(p.filter.mask) << "\n\n";  // its rank: k terms (convlive/low_rank.hpp)
  Row header;
  for (const Column& c : kColumns) header.push_back(c.title);
  printRow(out, header);
  std::optional<TimingFrame> frame;  // RGBA8 frames are timed
  if (rgba8) frame.emplace(size->w, size->h);
  json rows = json::array();
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const Variant* v : chosen) {
    const VariantInspection in = rgba8 ? inspectVariant(*v, p, size->w, size->h) : inspectVariant(*v, p, *image);
    const Timing t = in.hasFigures() && frame ? timeVariant(*v, p, *frame, o.runs) : Timing{};
    printVariant(out, in, t);
    rows.push_back(variantJson(in, t, size->w, size->h));
    if (in.hasFigures()) notes.emplace_back(v->name, notesOf(in));
  }
  printLegend(out, *image);
  if (!rgba8)
    out << "ms: RGBA8 frames only; convlive-bench --types " << o.frames << " times the variants on these frames.\n";
  if (!dev.available) out << "regs/occ and GPU times need a CUDA device: " << dev.reason << "\n";
  out << "\nnotes:\n";
  for (const auto& [name, list] : notes)
    for (const std::string& n : list) out << "  " << name << ": " << n << "\n";
  if (o.report.empty()) return kOk;
  const json doc{{"device", dev.available ? json(dev.name) : json(nullptr)},
                 {"device_reason", dev.available ? json(nullptr) : json(dev.reason)},
                 {"filter", o.spec.describe()},
                 {"mask", describeRank(p.filter.mask)},
                 {"width", size->w},
                 {"height", size->h},
                 {"frames", o.frames},
                 {"variants", rows}};
  if (!writeFileAtomically(o.report, doc.dump(1) + "\n")) {
    err << "convlive: cannot write " << o.report << "\n";
    return kFailed;
  }
  out << "\nwrote " << o.report << "\n";
  return kOk;
}

}  // namespace convlive
