// convlive: filter video (the viewer, headless runs, file export) or a still image with any
// convolution variant. The commands and their options are in cli.hpp.
#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) { return convlive::runCommandLine({argv, argv + argc}, std::cout, std::cerr); }
