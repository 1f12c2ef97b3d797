// convlive: filter a still image with any convolution variant (the video viewer comes next).
#include <CLI/CLI.hpp>
#include <iostream>

#include "convlive/variants.hpp"
#include "still.hpp"

int main(int argc, char** argv) {
  using namespace convlive;
  StillOptions o;
  bool list = false;
  std::string direction = "horizontal";
  CLI::App app{"convlive: real-time video filtering with CUDA convolution kernels (still images for now)"};
  std::string demo;
  app.add_option("--demo", demo, "Write a test picture and filtered versions of it into this folder, then exit");
  app.add_flag("--list-variants", list, "Print the kernel variants with their limits and tiles, then exit");
  app.add_option("--image", o.input, "Input PNG");
  app.add_option("--output", o.output, "Output PNG");
  std::string kinds;
  for (const auto& k : filterKinds()) kinds += (kinds.empty() ? "" : ", ") + k;
  app.add_option("--mask", o.mask, "Filter: " + kinds)->capture_default_str();
  app.add_option("--radius", o.filter.radius, "Mask radius (size 2r+1)")->capture_default_str();
  app.add_option("--sigma", o.filter.sigma, "Gaussian sigma (default 0.3*(r-1)+0.8)");
  app.add_option("--weights", o.filter.weights, "Custom weights: rows split by ';', values by ','");
  app.add_flag("--normalize", o.filter.normalize, "Divide custom weights by their sum");
  app.add_option("--pitch", o.filter.pitch, "Pitch in pixels for --mask pitch (1..64)")->capture_default_str();
  app.add_option("--direction", direction, "Pitch direction: horizontal or vertical")->capture_default_str();
  app.add_option("--border", o.border, "Border mode: zero, clamp, mirror (reflect-101), wrap")->capture_default_str();
  app.add_option("--variant", o.variant, "Kernel variant (see --list-variants), or auto")->capture_default_str();
  app.add_option("--tile", o.tile, "Tile shape WxH among the variant's (default: its first)");
  app.add_flag("--filter-alpha", o.filterAlpha, "Filter the alpha channel too (default: alpha passes through)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "convlive: " << e.what() << " (see --help)\n";
    return kBadInput;
  }
  if (list) {
    listVariants(std::cout);
    return kOk;
  }
  if (!demo.empty()) return runDemo(demo, std::cout, std::cerr);
  if (direction != "horizontal" && direction != "vertical") {
    std::cerr << "convlive: --direction '" << direction << "' must be horizontal or vertical\n";
    return kBadInput;
  }
  o.filter.vertical = direction == "vertical";
  return runStill(o, std::cout, std::cerr);
}
