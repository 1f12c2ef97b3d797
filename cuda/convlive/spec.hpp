// The one model of a filter: what the user asks for (the mask kind and its settings, the border,
// alpha) and how to run it (the variant and its tile). The command line, the viewer's panel, the
// report, the benchmark and the GStreamer element all build a FilterSpec and read the same setting
// table (specSettings()): a setting's name is the flag (--radius), the element's property and the
// Python keyword; its label is the panel's widget; its range, step, default and help are data that
// those front ends are generated from. FilterSpec::compile turns it into the FilterParams the
// kernels run. Plain value type: copy it freely, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convlive/border.hpp"
#include "convlive/problem.hpp"
#include "convlive/tile.hpp"

namespace convlive {

struct FilterParams;

struct FilterSpec {
  std::string mask = "gaussian";  // one of filterKinds()
  int radius = 1;                 // the mask is (2r+1)x(2r+1); pitch and custom derive theirs
  float sigma = 0.f;              // gaussian, sharpen: 0 = the default for the radius, 0.3*(r-1)+0.8
  float pitch = 2.f;              // pitch: the period in pixels, 1..64
  bool vertical = false;          // pitch: compare vertical neighbours instead of horizontal ones
  std::string weights;            // custom: rows split by ';', values by ',' (or spaces)
  std::string weightsFile;        // custom: a weights file (text rows or NumPy .npy), read when compiled
  std::string rowWeights;         // custom, separable: the horizontal factor ("1,2,1"), odd length
  std::string colWeights;         // custom, separable: the vertical factor; the custom mask takes one of
                                  // weights, weightsFile or the factors (one factor alone: a 1D mask)
  bool normalize = false;         // custom: divide the weights by their sum
  Border border = Border::Clamp;
  bool filterAlpha = false;      // false: the output keeps the input's alpha
  std::string variant = "auto";  // a name from the variant table, or auto (measured)
  Tile tile{};                   // {0,0}: the variant's default (auto: the measured one)

  bool operator==(const FilterSpec&) const = default;

  // Sets one setting from text ("radius", "4"). On a problem the spec is left as it was.
  Problem set(std::string_view setting, std::string_view value);
  // A setting's value as text, in the form set() reads ("auto" for the default sigma).
  std::string get(std::string_view setting) const;
  // The whole spec: the mask's own limits on its settings, and settings that do not go together.
  // Does not ask whether the variant can run it on a given frame (the variant's whyNot does).
  Problem validate() const;
  // The filter the kernels run (validate() first); `out` is unchanged on a problem.
  Problem compile(FilterParams& out) const;
  // compile(), throwing ProblemError.
  FilterParams params() const;
  // One line for logs and reports: "gaussian r=4 sigma=auto border=clamp variant=auto".
  std::string describe() const;
};

// One setting of a FilterSpec, described as data.
struct Setting {
  enum class Type { Choice, Int, Float, Flag, Text };
  std::string name;   // the flag (--name), the element's property, the Python keyword
  std::string label;  // the panel's widget
  Type type = Type::Text;
  double min = 0, max = 0, step = 1;  // Int and Float: the accepted range and the panel's step
  std::vector<std::string> choices;   // Choice: the accepted names (variant: "auto" and the table)
  std::string help;                   // one line: what it does
  std::vector<std::string> masks;     // the mask kinds it applies to; empty: every kind
  std::string defaultText() const { return FilterSpec{}.get(name); }
  bool appliesTo(std::string_view mask) const;
};

// Every setting, in the order front ends show them.
const std::vector<Setting>& specSettings();
const Setting* findSetting(std::string_view name);

}  // namespace convlive
