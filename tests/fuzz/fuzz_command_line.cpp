// The command line, as far as it is parsed without running anything: the old flag forms'
// translation (translateLegacy, app/cli.cpp) and the filter settings every command takes
// (FilterSpec::set, validate and compile, cuda/spec.cpp). The input is the argument list, one
// argument a line. --weights-file is left out: it names a file to read.
#include <exception>

#include "cli.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = convlive::fuzz::bytesOf(data, size);
  std::vector<std::string> args{"convlive"};
  while (!text.empty() && args.size() < 64) {
    const std::size_t nl = text.find('\n');
    args.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
  const convlive::LegacyTranslation t = convlive::translateLegacy(args);
  if (t.error.empty() && t.args.empty()) __builtin_trap();
  convlive::FilterSpec spec;
  for (std::size_t i = 1; i + 1 < args.size(); ++i) {
    if (args[i].rfind("--", 0) != 0) continue;
    const std::string name = args[i].substr(2);
    if (name == "weights-file" || !convlive::findSetting(name)) continue;
    (void)spec.set(name, args[i + 1]);
  }
  if (!spec.validate()) {
    try {
      convlive::FilterParams p;
      (void)spec.compile(p);
    } catch (const std::exception&) {
      // compile reports problems as values; an exception here is a finding
      __builtin_trap();
    }
  }
  (void)spec.describe();
  return 0;
}
