// Getting a source frame to the filter as RGBA (internal to pipeline/; the pipeline thread). On the
// GPU: staged in host memory the upload can read (the sample itself when it is page-locked or
// pageable mode is asked for, else a copy in the slot's pinned buffer), uploaded on the slot's
// stream, and converted there from NV12/I420. On the CPU: converted by the colour reference.
#pragma once

#include "convlive/image.hpp"
#include "slot_ring.hpp"

namespace convlive {

// Enqueues the upload of slot.frame into slot.gpu->in as RGBA on the slot's stream, recording the
// start, uploaded and converted events. Grey frames go to slot.gpu->greyIn as they came, and are
// expanded into slot.gpu->in only when the slot's plan takes RGBA8 (Slot::filtersGrey). `pinned`: uploads read
// page-locked memory (a copy into the slot's pinned buffer when the sample is not). Sets the slot's hostCopyMs, direct,
// uploadedFrom (which stays valid while the slot holds the frame) and enqueued.
void enqueueUpload(Slot& slot, bool pinned);

// The frame as RGBA in host memory: slot.frame's pixels, or a YUV or grey frame converted into
// slot.hostRgba (first copied to host memory when it was decoded into GPU memory). Sets
// slot.cpuConvertMs. Valid while the slot holds the frame.
ConstImageView rgbaOnHost(Slot& slot);

}  // namespace convlive
