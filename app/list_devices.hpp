// The CUDA devices: `convlive list devices`, and the --device option of the commands that use the
// GPU.
//
// --device N is process-wide: convlive's own threads, the pipeline's and GStreamer's (NVDEC
// decoders included) all work on device N. It is applied before CUDA starts in this process, by
// narrowing CUDA_VISIBLE_DEVICES to that device (after which it is this process's device 0); the
// devices are counted in a child process, so this one's CUDA starts already narrowed.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace convlive {

// One CUDA device as `list devices` shows it.
struct DeviceRow {
  int index = 0;
  std::string name;
  std::size_t memory = 0;  // bytes
  int major = 0, minor = 0, multiprocessors = 0;
};

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies): rows empty and `none` saying
// why (the CUDA error's text included) when there is none.
struct DeviceSurvey {
  std::vector<DeviceRow> rows;
  std::string none;
};

// The devices, asked in this process (starts CUDA here).
DeviceSurvey surveyDevices();

// Prints each device (index, name, memory, compute capability, SMs, NVDEC as GStreamer's nvcodec
// registry knows it), or one line saying there is none and why. Returns the exit code (0 both ways).
int listDevicesCommand(std::ostream& out, std::ostream& err);

// What --device N does before the command runs. `error` set: refuse with it (exit code 2); else
// `note` (may be empty) goes to stderr, and CUDA_VISIBLE_DEVICES names the device (`visible`, the
// value set; empty when nothing was changed: no device, where the CPU variant runs).
struct DeviceChoice {
  std::string error, note, visible;
};
// `survey`: the devices as counted before CUDA starts in this process.
DeviceChoice chooseDevice(int device, const DeviceSurvey& survey, const char* visibleDevices);

// --device N for the command: counts the devices in a child process, then narrows
// CUDA_VISIBLE_DEVICES (chooseDevice). Call before anything in this process uses CUDA. Returns
// the exit code to stop with (kBadInput), or -1 to go on; notes and errors go to `err`.
int applyDeviceOption(int device, std::ostream& err);

}  // namespace convlive
