// convlive-bench's typed mode (typed_bench.cpp): frames of every pixel type and channel count, and
// batches, against a copy of the same bytes.
#pragma once

namespace convlive::bench {

// Whether the command line asks for the typed mode (--types or --batches among its options).
bool wantsTypedMode(int argc, char** argv);
// The typed mode's main: 0 when everything was written, 1 on a failure, 2 on a bad command line.
int typedMain(int argc, char** argv);

}  // namespace convlive::bench
