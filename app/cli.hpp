// The command line: one command a run, each with its own options (CLI11 subcommands).
//
//   convlive [view]  [source] [filter] [viewer]      the viewer (the default command)
//   convlive run     [source] [filter] [run]         headless: a per-stage summary, a JSON report
//   convlive export  [source] [filter] -o FILE       filter a video into a file
//   convlive image   IN OUT [filter]                 one picture
//   convlive list    variants|patterns|cameras|devices   what there is
//   convlive bench   [convlive-bench options]        the kernel benchmark
//   convlive tune | demo DIR                         fill auto's cache | write demo pictures
//
// view, run, export, image, tune, demo and list variants take --device N: the CUDA device the whole
// process works on (list_devices.hpp), checked against the devices there are before anything runs.
// The filter options are generated from the spec's setting table (convlive/spec.hpp). An option
// that belongs to another command is an error naming the commands that take it. The old flag
// forms (`convlive --headless ...`, `--image`, `--output x.webm`, `--list-variants`, `--tune`,
// `--demo`) still work for one release: they are translated, with a note on stderr.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace convlive {

// The release `convlive --version` names (the README's "Commands" says what the old flag forms do
// in the next one).
inline constexpr const char* kConvliveVersion = "0.9.0";

// Runs the command the arguments name (args[0] is the program); returns the exit code.
int runCommandLine(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// An old-form command line translated: `args` for the new parser, `note` for stderr ("" when the
// arguments were already in the new form), `error` when the old form cannot be translated.
struct LegacyTranslation {
  std::vector<std::string> args;
  std::string note, error;
};
LegacyTranslation translateLegacy(const std::vector<std::string>& args);

}  // namespace convlive
