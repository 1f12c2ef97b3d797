// The DLPack structures the module reads (the consumer side of the protocol), declared from the DLPack
// specification's C ABI: the unversioned `dltensor` capsule that `__dlpack__()` returns when no
// max_version is asked for, and the versioned one of DLPack 1.x. Only what a consumer needs; the field
// order and types are the ABI.
#pragma once

#include <cstdint>

namespace convlive::dlpack {

enum DeviceType : std::int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13 };
enum TypeCode : std::uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kOpaqueHandle = 3,
  kBfloat = 4,
  kComplex = 5,
  kBool = 6
};

struct Device {
  std::int32_t deviceType;  // DeviceType
  std::int32_t deviceId;
};

struct DataType {
  std::uint8_t code;  // TypeCode
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;  // plus byteOffset: the first element
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; nullptr: compact row-major
  std::uint64_t byteOffset;
};

struct ManagedTensor {
  Tensor tensor;
  void* managerContext;
  void (*deleter)(ManagedTensor* self);  // the consumer calls it once, when it no longer reads the data
};

// DLPack 1.x (the `dltensor_versioned` capsule, when a producer gives only that one).
struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};
inline constexpr std::uint64_t kFlagReadOnly = 1;

struct ManagedTensorVersioned {
  Version version;
  void* managerContext;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;  // kFlagReadOnly, ...
  Tensor tensor;
};

}  // namespace convlive::dlpack
