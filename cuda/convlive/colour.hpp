// YUV 4:2:0 (NV12, I420) <-> RGBA8 colour conversion: on the GPU (asynchronous, on a stream) and a
// plain CPU reference the tests check it against.
//
// The model (one place, read by the kernels and the reference alike):
//   - Matrix: BT.601, BT.709 or BT.2020 (non-constant luminance) luma weights Kr, Kb (Kg = 1 - Kr - Kb);
//     R'G'B' in [0, 1]: Y' = Kr R' + Kg G' + Kb B', Pb = (B' - Y') / (2 (1 - Kb)), Pr = (R' - Y') / (2 (1 - Kr)).
//   - Range: limited Y = 16 + 219 Y', Cb/Cr = 128 + 224 P; full Y = 255 Y', Cb/Cr = 128 + 255 P
//     (GStreamer's 8-bit offsets and scales; a full-range Pb of +0.5 gives 255.5, saturated to 255).
//   - Chroma siting: MPEG-2 (GStreamer's and ffmpeg's default for 4:2:0): chroma sample (cx, cy) sits
//     on luma column 2cx and halfway between luma rows 2cy and 2cy + 1.
//   - Up (YUV -> RGBA): bilinear on that grid. Even columns take the chroma column, odd columns the
//     mean of the two beside them; a row takes 3/4 of its own chroma row and 1/4 of the next one
//     above (even rows) or below (odd rows). Edges replicate the last sample. Alpha = 255.
//   - Down (RGBA -> YUV): follows the siting: [1 2 1] / 4 across columns 2cx-1, 2cx, 2cx+1 and the mean
//     of rows 2cy and 2cy+1 (edges replicate), applied to R'G'B' before the matrix (the same as
//     filtering Cb/Cr: the matrix is linear). Alpha is ignored.
//   - Rounding: to nearest, halves up, then saturated to 0..255.
// Odd sizes: the chroma planes are ceil(w/2) x ceil(h/2).
//
// The names map 1:1 onto GStreamer's GstVideoColorimetry fields (GstVideoColorMatrix,
// GstVideoColorRange) and format names; this library has no GStreamer in it, the pipeline maps them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "convlive/image.hpp"
#include "convlive/resources.hpp"

namespace convlive {

// GST_VIDEO_FORMAT_NV12 (Y plane, then one plane of interleaved U, V bytes) and
// GST_VIDEO_FORMAT_I420 (Y, U, V planes).
enum class YuvFormat { NV12, I420 };
// GST_VIDEO_COLOR_MATRIX_BT601, _BT709, _BT2020.
enum class ColourMatrix { Bt601, Bt709, Bt2020 };
// GST_VIDEO_COLOR_RANGE_16_235 (limited: Y 16-235, Cb/Cr 16-240) and GST_VIDEO_COLOR_RANGE_0_255 (full).
enum class ColourRange { Limited, Full };

struct ColourSpec {
  ColourMatrix matrix = ColourMatrix::Bt709;
  ColourRange range = ColourRange::Limited;
  bool operator==(const ColourSpec& o) const { return matrix == o.matrix && range == o.range; }  // .cu files are C++17
};

// "NV12", "I420" (GStreamer's format strings); "bt601", "bt709", "bt2020"; "limited", "full".
std::string_view yuvFormatName(YuvFormat f);
std::string_view colourMatrixName(ColourMatrix m);
std::string_view colourRangeName(ColourRange r);
std::optional<YuvFormat> parseYuvFormat(std::string_view name);
std::string describe(const ColourSpec& spec);  // "bt709 limited"

constexpr int chromaWidth(int width) { return (width + 1) / 2; }
constexpr int chromaHeight(int height) { return (height + 1) / 2; }

// A YUV 4:2:0 frame: plane pointers and row pitches in bytes (host or device memory; the view never
// owns it and is valid as long as the memory is). Plane 0: Y, width x height bytes. NV12: plane 1
// holds chromaWidth x chromaHeight U,V byte pairs; plane 2 is unused (null). I420: plane 1 is U,
// plane 2 is V, chromaWidth x chromaHeight bytes each. Any alignment and pitch are accepted (the
// GPU kernels take a vectorised path when every plane and pitch allows it).
struct YuvView {
  YuvFormat format = YuvFormat::I420;
  int width = 0, height = 0;
  std::uint8_t* planes[3] = {nullptr, nullptr, nullptr};
  std::size_t pitches[3] = {0, 0, 0};
};
struct ConstYuvView {
  YuvFormat format = YuvFormat::I420;
  int width = 0, height = 0;
  const std::uint8_t* planes[3] = {nullptr, nullptr, nullptr};
  std::size_t pitches[3] = {0, 0, 0};
  ConstYuvView() = default;
  ConstYuvView(const YuvView& v)  // NOLINT: a view of writable planes reads as well
      : format(v.format),
        width(v.width),
        height(v.height),
        planes{v.planes[0], v.planes[1], v.planes[2]},
        pitches{v.pitches[0], v.pitches[1], v.pitches[2]} {}
};

// Bytes of the planes' rows (without padding): plane 0 width; NV12 plane 1 2 * chromaWidth;
// I420 planes 1 and 2 chromaWidth. 0 for NV12's plane 2.
std::size_t yuvRowBytes(YuvFormat format, int width, int plane);
int yuvPlaneRows(int height, int plane);  // height for plane 0, chromaHeight for the others
int yuvPlaneCount(YuvFormat format);      // 2 (NV12) or 3 (I420)

// Where a frame's planes lie in one buffer: byte offsets and row pitches (GStreamer's GstVideoInfo
// offset[] and stride[] fit here as they are).
struct YuvLayout {
  YuvFormat format = YuvFormat::I420;
  int width = 0, height = 0;
  std::size_t offsets[3] = {0, 0, 0};
  std::size_t pitches[3] = {0, 0, 0};
  std::size_t bytes = 0;  // the whole frame
};
// Planes one after another: luma rows `lumaPitch` bytes apart (0: width), NV12 chroma rows at the
// luma pitch (at least 2 * chromaWidth), I420 chroma rows at half of it rounded up.
YuvLayout packedYuvLayout(YuvFormat format, int width, int height, std::size_t lumaPitch = 0);
YuvView yuvViewAt(const YuvLayout& layout, std::uint8_t* base);
ConstYuvView yuvViewAt(const YuvLayout& layout, const std::uint8_t* base);

// The model's numbers for a spec, in double: luma weights and the range's offsets and scales
// (Y = yOffset + yScale Y', Cb/Cr = 128 + cScale P). The reference computes with these; the kernels
// fold them into float coefficients.
struct ColourCoefficients {
  double kr = 0, kg = 0, kb = 0;
  double yOffset = 0, yScale = 0, cScale = 0;
};
ColourCoefficients colourCoefficients(ColourSpec spec);

// Empty when the view can be converted to/from an RGBA frame of the same size; else why not
// (sizes differ, a null plane, a pitch shorter than its row).
std::string whyNotConvert(const ConstYuvView& yuv, const ConstImageView& rgba);
// Throws std::invalid_argument("<what>: <reason>") when whyNotConvert says no.
void checkConvertible(const ConstYuvView& yuv, const ConstImageView& rgba, const char* what);

// GPU: asynchronous on `stream`; `in` and `out` are device memory of the same size and do not
// overlap. Throws CudaError when the launch fails, std::invalid_argument when whyNotConvert says
// no or the frame is taller than the conversion's grid takes (1048560 rows), before any launch.
// Any thread; nothing is kept between calls.
void yuvToRgba(const ConstYuvView& in, ImageView out, ColourSpec spec, cudaStream_t stream);
void rgbaToYuv(ConstImageView in, const YuvView& out, ColourSpec spec, cudaStream_t stream);

// The CPU reference: the same conversions on host memory, in doubles with explicit rounding.
// Throws std::invalid_argument when whyNotConvert says no.
void referenceYuvToRgba(const ConstYuvView& in, ImageView out, ColourSpec spec);
void referenceRgbaToYuv(ConstImageView in, const YuvView& out, ColourSpec spec);

// Grey frames (GRAY8, GRAY16_LE: one channel of u8 or u16 values, rows as `grey` says) as RGBA8,
// for display and for the sinks that take RGBA: R = G = B = the value, alpha 255. u8 values as they
// are; u16 ones scaled to 8 bits to nearest, round(v / 257) (0 -> 0, 65535 -> 255), halves up.
// Empty when `grey` (one frame) can be expanded into `rgba`; else why not (another size, type or
// channel count, a batch, no memory, a pitch shorter than its row).
std::string whyNotExpandGrey(const ImageDesc& grey, const ConstImageView& rgba);
// GPU: asynchronous on `stream`, device memory that does not overlap. Throws std::invalid_argument
// when whyNotExpandGrey says no or the frame is taller than the grid takes (524280 rows), before
// any launch; CudaError when the launch fails. Any thread.
void greyToRgba(const void* in, const ImageDesc& grey, ImageView out, cudaStream_t stream);
// The CPU reference, on host memory. Throws std::invalid_argument when whyNotExpandGrey says no.
void referenceGreyToRgba(const void* in, const ImageDesc& grey, ImageView out);

// A YUV frame in device memory laid out as `layout` says (RAII through DeviceBuffer).
class DeviceYuvFrame {
 public:
  DeviceYuvFrame() = default;
  explicit DeviceYuvFrame(const YuvLayout& layout);
  const YuvLayout& layout() const { return layout_; }
  YuvView view() const { return yuvViewAt(layout_, buf_.as<std::uint8_t>()); }
  bool empty() const { return layout_.bytes == 0; }

 private:
  YuvLayout layout_;
  DeviceBuffer buf_;
};

}  // namespace convlive
