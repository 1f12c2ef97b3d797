// How each front end words a Problem (convlive/problem.hpp): the command line names flags and
// says "use --variant cpu"; the panel names its widgets and says "choose cpu under Variant".
#pragma once

#include <string>

#include "convlive/problem.hpp"

namespace convlive {

const Wording& commandLineWording();
const Wording& panelWording();
// words(p, commandLineWording()) / words(p, panelWording()).
std::string forCommandLine(const Problem& p);
std::string forPanel(const Problem& p);
// An exception as the command line shows it: a ProblemError's parts worded for flags, else what().
std::string forCommandLine(const std::exception& e);
std::string forPanel(const std::exception& e);

}  // namespace convlive
