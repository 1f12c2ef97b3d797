// The element's path for video/x-raw(memory:CUDAMemory) (gst-plugins-bad's GstCuda library, 1.22):
// frames that are already in GPU memory (nvh264dec ! cudaconvert, cudaupload) are filtered where
// they are, with no host copy. The CUDA context is the device's primary context (the CUDA
// runtime's), one for every element of the process, where cuda-device-id names a device or the
// machine has one: taken when the element goes to READY and posted to the pipeline, so the
// decoder upstream shares it (GStreamer 1.22 caches one context per pipeline whatever its device,
// and over two GPUs its elements made a context each; contexts on one GPU take turns on it).
// Otherwise (-1 on a machine of several GPUs) it is a neighbour's, through the context query or
// the one set on the element (gst_cuda_ensure_element_context). Frames in another device's context
// than the one cuda-device-id names are an element error, not a silent copy. The context is made
// current around every CUDA call here; the element's stream and its plan's workspace live in it.
// GstCuda 1.22 memory carries no stream, so each frame is waited for before it goes downstream (as
// nvcodec's elements do). Frames whose memory belongs to another context go the host way instead.
// NV12/I420 frames are converted to RGBA8 on the device (convlive/colour.hpp, in device frames of
// the path's own) around the filter and written back into the output's planes. RGB and BGR are
// filtered as u8x3 where they are (frame_formats.hpp: GRAY8, GRAY16_LE and RGBA64_LE are not CUDA
// memory formats of GstCuda).
//
// Untested on a GPU so far (this was written on a machine without one): the tests here check the
// caps, and that without a device such caps end in an element error, not a crash.
//
// Used by the streaming thread (prepare, run, allocation queries) and by the element's context
// handling (set_context during state changes, context queries), as GStreamer's CUDA elements do.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <memory>
#include <string>

#include "convlive/plan.hpp"

namespace convlive::gstelement {

// "video/x-raw(memory:CUDAMemory), format={RGBA,...,RGB,BGR,NV12,I420}": the caps this path takes.
const char* cudaMemoryCaps();
bool hasCudaMemoryFeature(GstCaps* caps);

class CudaMemoryPath {
 public:
  explicit CudaMemoryPath(GstElement* element);
  ~CudaMemoryPath();
  CudaMemoryPath(const CudaMemoryPath&) = delete;
  CudaMemoryPath& operator=(const CudaMemoryPath&) = delete;

  // The device asked for (the element's cuda-device-id; -1: a neighbour's context, else the
  // default device). Set before start; a neighbour's context on another device is then not shared.
  void setDevice(int device) { deviceId_ = device; }
  // The device of the context in use (-1 without one).
  int contextDevice() const;
  // When cuda-device-id names a device and `in` is CUDA memory on another one: what is wrong and
  // what to do, for an element error ("" otherwise).
  std::string deviceMismatch(GstBuffer* in) const;

  // Going to READY (and at start): where cuda-device-id names a device, or the machine has one
  // device, takes that device's primary CUDA context (the CUDA runtime's; one GstCudaContext for
  // every element of the process) and posts it to the pipeline (have-context). Elements start from
  // the sink up, so the decoder or cudaupload upstream finds it by the context query when it
  // starts, and the other branches on the device share it. Contexts offered by set_context are
  // then not taken. -1 on a machine of several devices: nothing here (adoptNeighbourContext).
  void shareDeviceContext();
  // GstElement::set_context and the context query, for the neighbours to share one context.
  void setContext(GstContext* context);
  bool answerContextQuery(GstQuery* query);
  // Finds or makes the context. False, with the reason in `why`, where CUDA cannot be loaded or
  // there is no device.
  bool ensureContext(std::string& why);
  // At start (READY to PAUSED, on the application's thread): adopts a neighbour's context if one
  // has it already, making none. Elements start from the sink up, so cudadownload's context is
  // there to take; left to caps time (the streaming thread) this element made a second context on
  // the H200, and cudaupload's frames could not be filtered in it.
  void adoptNeighbourContext();

  // Allocation queries for CUDA caps: upstream gets a CUDA pool of the context; downstream's pool
  // is kept when it is one of this context, else replaced.
  bool proposeAllocation(GstQuery* query);
  bool decideAllocation(GstQuery* query);

  // True when both buffers are CUDA memory of this path's context (else the host way is taken).
  bool canRun(GstBuffer* in, GstBuffer* out) const { return whyNot(in, out).empty(); }
  // Why the frames cannot be filtered in this element's context ("" when they can).
  std::string whyNot(GstBuffer* in, GstBuffer* out) const;
  // The stream and a copy of `plan` (a device-memory plan: its own workspace), made in the context.
  // Throws CudaError, std::runtime_error.
  void prepare(const Plan& plan);
  // out = plan(in) on the device, waited for (YUV: converted with the matrix and range of inInfo's
  // colorimetry). Throws CudaError, std::invalid_argument, std::runtime_error.
  void run(GstBuffer* in, const GstVideoInfo& inInfo, GstBuffer* out, const GstVideoInfo& outInfo);
  // Frees the stream and workspace (in the context) and lets go of the context.
  void reset();

 private:
  struct Device;
  GstElement* element_;
  int primaryDevice() const;    // the device whose primary context is shared, or -1
  int deviceId_ = -1;           // cuda-device-id as taken at start
  gpointer context_ = nullptr;  // GstCudaContext*, a reference
  std::unique_ptr<Device> device_;
};

}  // namespace convlive::gstelement
