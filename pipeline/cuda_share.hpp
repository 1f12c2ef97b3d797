// GStreamer's CUDA elements (gst-plugins-bad's nvcodec: nvh264dec and the other NVDEC decoders)
// working in convlive's own CUDA context, so that decoded frames stay in GPU memory and the
// pipeline's kernels read them where they are (internal to pipeline/).
#pragma once

#include <gst/gst.h>

#include <string>

namespace convlive {

// Whether NVDEC decoding with frames in CUDA memory can be offered here: a CUDA device, GstCuda's
// loader, and at least one nvcodec decoder. When not, `why` says what is missing.
bool nvdecAvailable(std::string& why);

// Gives `pipeline` the CUDA runtime's primary context (device of the calling thread) as its
// GstCudaContext: nvcodec's elements added to it then allocate their frames there. False (with
// `why`) when the context cannot be wrapped.
bool shareCudaContext(GstElement* pipeline, std::string& why);

// True when the buffer is one block of CUDA memory in the shared context: its planes can be
// mapped as device pointers with cudaMapFlags() and read by the runtime's kernels directly.
bool inSharedCudaContext(GstBuffer* buffer);
GstMapFlags cudaMapFlags();

// Connects uridecodebin's autoplug-factories so that, for video caps an NVDEC decoder takes, that
// decoder is tried first (whatever its rank; the process keeps their ranks at none, see source.cpp).
void preferNvdec(GstElement* uridecodebin);

}  // namespace convlive
