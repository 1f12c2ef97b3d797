// `convlive list variants --details`: the inspector's figures for every variant (or the one
// --variant names) as a table: launch geometry, resources and occupancy (with a GPU), the work model
// per output pixel, and a measured time on a random frame of --size. Optionally the same as JSON.
#pragma once

#include <iosfwd>
#include <string>

#include "convlive/spec.hpp"

namespace convlive {

struct VariantDetailsOptions {
  FilterSpec spec;                // the filter; variant auto: every variant, else only that one
  std::string size = "1280x720";  // the frame: WxH
  std::string frames = "u8x4";    // its pixel type and channels: u8x4 (RGBA8), u8x1, u16x1, f32x3, ...
  std::string report;             // a JSON file to write the figures to ("": none)
  int runs = 20;                  // timed runs per GPU variant (after warm-up)
};

// Prints the table on `out`; throws std::invalid_argument (a ProblemError where it carries one) for
// bad options, CudaError when CUDA fails. Returns the exit code.
int listVariantDetails(const VariantDetailsOptions& o, std::ostream& out, std::ostream& err);

}  // namespace convlive
