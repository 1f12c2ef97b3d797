// Page-locking GStreamer's pooled frame memory for CUDA, once per memory block (internal).
#pragma once

#include <gst/gst.h>

namespace convlive {

struct HostRegistration {
  bool registered = false;  // page-locked (false: too small, shared pages, or no device; copy instead)
  bool firstSeen = false;   // this call tried to register it (else the block was known)
  double ms = 0;            // the time that took
};

// Registers `mem` with cudaHostRegister the first time it is seen and unregisters it when
// GStreamer frees it. Thread-safe.
HostRegistration registerHostMemory(GstMemory* mem);

}  // namespace convlive
