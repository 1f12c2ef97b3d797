// convlive-bench's typed mode (typed_bench.cpp): frames of every pixel type and channel count, and
// batches, against a copy of the same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "convlive/mask.hpp"

namespace convlive::bench {

// Both modes' --masks: the first kind that is not a built-in mask, as the message that refuses it
// (empty when all are).
std::string unknownMaskKind(const std::vector<std::string>& kinds);
// Each kind at each radius it has (scharr has radius 1 only), in that order.
std::vector<std::pair<std::string, Filter>> builtInFilters(const std::vector<std::string>& kinds,
                                                           const std::vector<int>& radii);

// Whether the command line asks for the typed mode (--types or --batches among its options).
bool wantsTypedMode(int argc, char** argv);
// The typed mode's main: 0 when everything was written, 1 on a failure, 2 on a bad command line.
int typedMain(int argc, char** argv);

}  // namespace convlive::bench
