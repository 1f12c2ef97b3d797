// Page-locking GStreamer's pooled frame memory for CUDA, once per memory block (internal).
#pragma once

#include <gst/gst.h>

namespace convlive {

// Registers `mem` with cudaHostRegister the first time it is seen and unregisters it when
// GStreamer frees it. Returns whether the memory is registered (false: too small, shared pages,
// or no device; the caller copies instead). Thread-safe.
bool registerHostMemory(GstMemory* mem);

}  // namespace convlive
