// convlive --tune: fills the tuning cache behind `auto` for the common frame sizes and masks.
#pragma once

#include <iosfwd>

namespace convlive {

// Times the candidates for each case (cached cases are not timed again), prints one row per case
// (size, mask, radius, winner and tile, its time, the runner-up and the ratio) and where the cache
// is. Returns 0, or 1 without a CUDA device (with the reason on err).
int runTune(std::ostream& out, std::ostream& err);

}  // namespace convlive
