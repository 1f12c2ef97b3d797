// Why something cannot be done, as a value: a code, the setting at fault and the detail, in words
// that name no interface. Whoever shows it words it for its user: the command line names flags
// ("--radius", "use --variant cpu"), the panel names widgets ("Radius", "choose cpu under
// Variant"), the GStreamer element names properties. The library never writes "--flag" itself.
#pragma once

#include <stdexcept>
#include <string>

namespace convlive {

struct Problem {
  enum class Code {
    None,        // no problem
    Invalid,     // a value that does not parse or breaks a rule ("1,,2", a ragged weight grid)
    OutOfRange,  // a number outside the accepted range
    Unknown,     // a name that is not one of the accepted ones
    Missing,     // a value that must be given is empty
    Conflict,    // two settings that do not go together
    CannotRun,   // this variant cannot run this filter here (radius, mask, device, memory)
    NoDevice,    // no usable CUDA device
  };
  Code code = Code::None;
  std::string setting;  // the setting at fault, by its spec name ("radius", "weights", "variant"); may be ""
  // What is wrong, without the setting's name (the front end puts its own word for it in front):
  // "99 is out of range 0..64".
  std::string detail;
  // A way out, when there is one: set `fixSetting` to `fixValue` ("variant", "cpu").
  std::string fixSetting, fixValue;

  static Problem none() { return {}; }
  bool empty() const { return code == Code::None; }
  explicit operator bool() const { return !empty(); }
  // Neutral words for logs and exceptions: "radius: 99 is out of range 0..64", then ": set variant
  // to cpu" when there is a fix.
  std::string text() const;
  // For callers that only log: the neutral text.
  operator std::string() const { return text(); }
};

Problem problem(Problem::Code code, std::string setting, std::string detail, std::string fixSetting = {},
                std::string fixValue = {});

// How a front end names settings and phrases a fix.
struct Wording {
  std::string (*setting)(const std::string& name);                           // "radius" -> "--radius"
  std::string (*fix)(const std::string& setting, const std::string& value);  // "use --variant cpu"
};
std::string words(const Problem& p, const Wording& w);

// A Problem thrown: what() is the neutral text; problem() keeps the parts for a front end to word.
class ProblemError : public std::invalid_argument {
 public:
  explicit ProblemError(Problem p) : std::invalid_argument(p.text()), problem_(std::move(p)) {}
  const Problem& problem() const { return problem_; }

 private:
  Problem problem_;
};

}  // namespace convlive
