// `convlive list variants`: the variant table as a user reads it.
#pragma once

#include <iosfwd>

namespace convlive {

// Prints the variant table with limits, the masks each takes, tiles and whether each runs on this
// machine, its lines wrapped to `width` characters (0: not wrapped).
void listVariants(std::ostream& out, int width = 0);

}  // namespace convlive
