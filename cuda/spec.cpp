#include "convlive/spec.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "convlive/mask.hpp"
#include "convlive/variants.hpp"
#include "convlive/weights_file.hpp"

namespace convlive {

// ---- Problem --------------------------------------------------------------------------------

Problem problem(Problem::Code code, std::string setting, std::string detail, std::string fixSetting,
                std::string fixValue) {
  return Problem{code, std::move(setting), std::move(detail), std::move(fixSetting), std::move(fixValue)};
}

std::string Problem::text() const {
  if (empty()) return {};
  std::string s = setting.empty() ? detail : setting + ": " + detail;
  if (!fixSetting.empty()) s += ": set " + fixSetting + " to " + fixValue;
  return s;
}

std::string words(const Problem& p, const Wording& w) {
  if (p.empty()) return {};
  std::string s = p.setting.empty() ? p.detail : w.setting(p.setting) + ": " + p.detail;
  if (!p.fixSetting.empty()) s += ": " + w.fix(p.fixSetting, p.fixValue);
  return s;
}

// ---- FilterSpec -----------------------------------------------------------------------------

namespace {

using Code = Problem::Code;

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The whole text must be one number (no trailing characters, not empty).
bool parseInt(std::string_view text, int& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}
bool parseFloat(std::string_view text, float& out) {
  const std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  out = static_cast<float>(v);
  return true;
}
bool parseFlag(std::string_view text, bool& out) {
  for (const char* t : {"true", "1", "on", "yes", ""})
    if (text == t) return out = true, true;
  for (const char* f : {"false", "0", "off", "no"})
    if (text == f) return out = false, true;
  return false;
}

Problem outOfRange(const Setting& s, std::string_view value) {
  return problem(Code::OutOfRange, s.name,
                 std::string(value) + " is out of range: use " + number(s.min) + ".." + number(s.max));
}

std::vector<std::string> variantChoices() {
  std::vector<std::string> names{"auto"};
  for (const Variant& v : variants()) names.push_back(v.name);
  return names;
}

std::vector<Setting> makeSettings() {
  using T = Setting::Type;
  const double maxR = Mask::kMaxRadius;
  std::vector<Setting> s;
  s.push_back({"mask",
               "Mask",
               T::Choice,
               0,
               0,
               1,
               filterKinds(),
               "the filter: box, gaussian and sharpen blur or sharpen; emboss, laplacian, sobel and scharr find "
               "edges; pitch compares pixels a period apart; custom takes your weights",
               {}});
  s.push_back({"radius",
               "Radius",
               T::Int,
               1,
               maxR,
               1,
               {},
               "mask radius r: the mask is (2r+1)x(2r+1)",
               {"box", "gaussian", "sharpen", "emboss", "laplacian", "sobel", "scharr"}});
  s.push_back({"sigma",
               "Sigma",
               T::Float,
               0.1,
               maxR,
               0.1,
               {},
               "gaussian width in pixels; auto: 0.3*(r-1)+0.8, OpenCV's default for the radius",
               {"gaussian", "sharpen"}});
  s.push_back({"pitch",
               "Pitch",
               T::Float,
               1,
               maxR,
               0.1,
               {},
               "period in pixels: each pixel is compared with its neighbours this far away",
               {"pitch"}});
  s.push_back({"direction",
               "Direction",
               T::Choice,
               0,
               0,
               1,
               {"horizontal", "vertical"},
               "which neighbours pitch compares",
               {"pitch"}});
  s.push_back({"weights",
               "Weights",
               T::Text,
               0,
               0,
               1,
               {},
               "custom weights: rows split by ';', values by ',' (an odd square, one row or one column)",
               {"custom"}});
  s.push_back({"weights-file",
               "Weights file",
               T::Text,
               0,
               0,
               1,
               {},
               "custom weights from a file: text (.txt, .csv: one row of numbers a line, commas or spaces, '#' "
               "comments) or NumPy .npy (2D float32/float64)",
               {"custom"}});
  s.push_back({"row-weights",
               "Row weights",
               T::Text,
               0,
               0,
               1,
               {},
               "custom separable mask: the horizontal factor, an odd count of numbers (\"1,4,6,4,1\"); the "
               "shorter factor is padded with zeros",
               {"custom"}});
  s.push_back({"col-weights",
               "Column weights",
               T::Text,
               0,
               0,
               1,
               {},
               "custom separable mask: the vertical factor; weight (i,j) = col[i] * row[j]; one factor alone is "
               "a 1D mask",
               {"custom"}});
  s.push_back({"normalize", "Normalize", T::Flag, 0, 0, 1, {}, "divide the custom weights by their sum", {"custom"}});
  s.push_back({"border",
               "Border",
               T::Choice,
               0,
               0,
               1,
               {"zero", "clamp", "mirror", "wrap"},
               "what lies beyond the frame's edge: zero, clamp (replicate), mirror (reflect-101) or wrap",
               {}});
  s.push_back({"filter-alpha",
               "Filter alpha",
               T::Flag,
               0,
               0,
               1,
               {},
               "filter the alpha channel too (else the output keeps the input's alpha)",
               {}});
  s.push_back({"variant",
               "Variant",
               T::Choice,
               0,
               0,
               1,
               variantChoices(),
               "kernel variant from the table, or auto: the fastest measured on this GPU",
               {}});
  s.push_back({"tile",
               "Tile",
               T::Text,
               0,
               0,
               1,
               {},
               "tile shape WxH among the named variant's tiles (default: its first; auto measures one)",
               {}});
  return s;
}

}  // namespace

bool Setting::appliesTo(std::string_view mask) const {
  return masks.empty() || std::find(masks.begin(), masks.end(), mask) != masks.end();
}

const std::vector<Setting>& specSettings() {
  static const std::vector<Setting> settings = makeSettings();
  return settings;
}

const Setting* findSetting(std::string_view name) {
  for (const Setting& s : specSettings())
    if (s.name == name) return &s;
  return nullptr;
}

Problem FilterSpec::set(std::string_view name, std::string_view value) {
  const Setting* s = findSetting(name);
  if (!s) {
    std::vector<std::string> names;
    for (const Setting& x : specSettings()) names.push_back(x.name);
    return problem(Code::Unknown, "", "there is no setting '" + std::string(name) + "': use one of " + join(names));
  }
  const std::string v(value);
  if (s->type == Setting::Type::Choice) {
    std::string chosen = v;
    if (name == "border") {
      const auto b = parseBorder(v);
      if (!b) return problem(Code::Unknown, s->name, "'" + v + "' is not a border mode: use " + join(s->choices));
      border = *b;
      return {};
    }
    if (std::find(s->choices.begin(), s->choices.end(), v) == s->choices.end())
      return problem(
          v.empty() ? Code::Missing : Code::Unknown, s->name,
          (v.empty() ? std::string("is empty") : "'" + v + "' is not one") + ": use one of " + join(s->choices));
    if (name == "mask") mask = v;
    if (name == "direction") vertical = v == "vertical";
    if (name == "variant") variant = v;
    return {};
  }
  if (s->type == Setting::Type::Int) {
    int i = 0;
    if (!parseInt(v, i)) return problem(Code::Invalid, s->name, "'" + v + "' is not a whole number");
    if (i < s->min || i > s->max) return outOfRange(*s, v);
    radius = i;
    return {};
  }
  if (s->type == Setting::Type::Float) {
    float f = 0.f;
    if (name == "sigma" && v == "auto") {
      sigma = 0.f;
      return {};
    }
    if (!parseFloat(v, f) || !std::isfinite(f))
      return problem(Code::Invalid, s->name, "'" + v + "' is not a finite number");
    if (f < s->min || f > s->max) {
      Problem p = outOfRange(*s, v);
      if (name == "sigma") p.detail += " (or auto for 0.3*(r-1)+0.8)";
      return p;
    }
    (name == "sigma" ? sigma : pitch) = f;
    return {};
  }
  if (s->type == Setting::Type::Flag) {
    bool b = false;
    if (!parseFlag(v, b)) return problem(Code::Invalid, s->name, "'" + v + "' is not true or false");
    (name == "normalize" ? normalize : filterAlpha) = b;
    return {};
  }
  // Text.
  if (name == "weights") {
    if (v.find_first_not_of(" \t;,") == std::string::npos)
      return problem(Code::Missing, s->name, "are empty: write rows as \"1,2,1;2,4,2;1,2,1\"");
    weights = v;
    return {};
  }
  if (name == "weights-file") {  // read when compiled; "" unsets it
    weightsFile = v;
    return {};
  }
  if (name == "row-weights" || name == "col-weights") {  // "" unsets it
    std::vector<float> factor;
    if (!v.empty())
      if (Problem why = parseWeightVector(v, factor)) {
        why.setting = s->name;
        return why;
      }
    (name == "row-weights" ? rowWeights : colWeights) = v;
    return {};
  }
  // tile
  if (v.empty() || v == "default") {
    tile = {};
    return {};
  }
  const auto t = Tile::parse(v);
  if (!t) return problem(Code::Invalid, s->name, "'" + v + "' is not WxH (for example 32x8)");
  tile = *t;
  return {};
}

std::string FilterSpec::get(std::string_view name) const {
  if (name == "mask") return mask;
  if (name == "radius") return std::to_string(radius);
  if (name == "sigma") return sigma > 0.f ? number(sigma) : "auto";
  if (name == "pitch") return number(pitch);
  if (name == "direction") return vertical ? "vertical" : "horizontal";
  if (name == "weights") return weights;
  if (name == "weights-file") return weightsFile;
  if (name == "row-weights") return rowWeights;
  if (name == "col-weights") return colWeights;
  if (name == "normalize") return normalize ? "true" : "false";
  if (name == "border") return borderName(border);
  if (name == "filter-alpha") return filterAlpha ? "true" : "false";
  if (name == "variant") return variant;
  if (name == "tile") return tile == Tile{} ? "default" : tile.str();
  return {};
}

Problem FilterSpec::validate() const {
  FilterParams unused;
  return compile(unused);
}

Problem FilterSpec::compile(FilterParams& out) const {
  // Each setting on its own, as set() would take it (a spec built in code skips set()).
  for (const Setting& s : specSettings()) {
    if (s.name == "weights" && weights.empty()) continue;  // only custom needs them (below)
    FilterSpec copy = *this;
    if (auto p = copy.set(s.name, get(s.name))) return p;
  }
  if (!(tile == Tile{})) {
    if (variant == "auto")
      return problem(Code::Conflict, "tile",
                     tile.str() + " picks among one variant's tiles, and auto chooses the variant", "variant", "fused");
    const Variant* v = findVariant(variant);
    if (v && v->tiles.empty())
      return problem(Code::Conflict, "tile", v->name + " has no tile shapes: leave the tile at its default");
    if (v)
      if (Problem why = v->tileProblem(tile)) return why;
  }
  FilterParams params;
  try {
    params.filter = makeFilter(*this);  // built once: the builders' checks are the last ones
  } catch (const ProblemError& e) {
    return e.problem();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    const std::string setting = mask == "custom"                          ? "weights"
                                : mask == "pitch"                         ? "pitch"
                                : what.find("sigma") != std::string::npos ? "sigma"
                                                                          : "radius";
    return problem(Code::Invalid, setting, what);
  }
  params.border = border;
  params.filterAlpha = filterAlpha;
  params.tile = tile;
  out = std::move(params);
  return {};
}

FilterParams FilterSpec::params() const {
  FilterParams p;
  if (auto why = compile(p)) throw ProblemError(why);
  return p;
}

std::string FilterSpec::describe() const {
  std::string s = mask;
  for (const Setting& x : specSettings()) {
    if (x.name == "mask" || x.name == "variant" || !x.appliesTo(mask)) continue;
    if (x.name == "tile" && tile == Tile{}) continue;
    if (x.name == "filter-alpha" && !filterAlpha) continue;
    if (x.name == "normalize" && !normalize) continue;
    if (x.type == Setting::Type::Text && x.name != "tile" && get(x.name).empty()) continue;
    s += " " + (x.name == "radius" ? std::string("r") : x.name) + "=" + get(x.name);
  }
  return s + " variant=" + variant;
}

}  // namespace convlive
