// Runs a command body, turning exceptions into one line on `err` and an exit code: bad input
// (std::invalid_argument, worded for the command line when it carries a Problem; a source that
// cannot open) 2, anything else 1. The body returns its exit
// code, or nothing for success.
#pragma once

#include <ostream>
#include <stdexcept>
#include <type_traits>

#include "convlive/source.hpp"
#include "still.hpp"
#include "words.hpp"

namespace convlive {

template <class Body>
int guarded(std::ostream& err, Body body) {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return kOk;
    } else {
      return body();
    }
  } catch (const std::invalid_argument& e) {
    err << "convlive: " << forCommandLine(e) << "\n";
    return kBadInput;
  } catch (const SourceError& e) {
    err << "convlive: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    err << "convlive: " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace convlive
