// The still-image command line: its output, errors and exit codes (runs the real program).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "convlive/half.hpp"
#include "convlive/mask.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "image_compare.hpp"
#include "image_io.hpp"
#include "png_bytes.hpp"
#include "run_program.hpp"
#include "still.hpp"

using namespace convlive;
namespace fs = std::filesystem;

namespace {

using Result = convlive::testing::ProgramResult;
Result runConvlive(const std::string& args) { return convlive::testing::runConvliveWith(args); }

class StillCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("convlive-still-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::mt19937 rng(std::random_device{}());
    in_ = HostImage(45, 31);
    for (auto& p : in_.pixels()) p = static_cast<std::uint8_t>(rng() >> 24);
    writePng(path("in.png"), in_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
  HostImage in_;
};

int maxDiff(const HostImage& a, const HostImage& b) { return testcases::maxDifference(a.view(), b.view()); }

}  // namespace

TEST_F(StillCommand, CpuVariantWritesTheReferenceResult) {
  const auto r = runConvlive("--image " + path("in.png") + " --output " + path("out.png") +
                             " --mask gaussian --radius 3 --border mirror --variant cpu");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("variant=cpu"), std::string::npos) << r.output;
  const HostImage got = readPng(path("out.png"));
  HostImage want(in_.width(), in_.height());
  referenceFilter(makeFilter("gaussian", {.radius = 3}), Border::Mirror, false, in_.view(), want.view());
  EXPECT_EQ(maxDiff(got, want), 0);
}

TEST_F(StillCommand, CustomSobelAndPitchMasks) {
  const std::string io = " --image " + path("in.png") + " --output " + path("out.png") + " --variant cpu";
  auto r = runConvlive("--mask custom --weights \"1,2,1;2,4,2;1,2,1\" --normalize" + io);
  ASSERT_EQ(r.code, 0) << r.output;
  HostImage want(in_.width(), in_.height());
  Filter f;
  f.mask = parseCustomMask("1,2,1;2,4,2;1,2,1", true);
  referenceFilter(f, Border::Clamp, false, in_.view(), want.view());
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);

  r = runConvlive("--mask sobel" + io);
  ASSERT_EQ(r.code, 0) << r.output;
  referenceFilter(makeFilter("sobel", {.radius = 1}), Border::Clamp, false, in_.view(), want.view());
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);

  r = runConvlive("--mask pitch --pitch 3.4 --direction vertical" + io);
  ASSERT_EQ(r.code, 0) << r.output;
  referenceFilter(makeFilter("pitch", {.pitch = 3.4f, .vertical = true}), Border::Clamp, false, in_.view(),
                  want.view());
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);
}

TEST_F(StillCommand, ListVariants) {
  // Not wrapped where COLUMNS is not set and the output is not a terminal (a pipe here).
  const auto r = convlive::testing::runConvliveWith("--list-variants", "env -u COLUMNS");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* v : {"naive", "constant", "tiled", "tiled-coop", "separable", "fused", "stream", "tensor2d",
                        "tensorsep", "texture", "cpu", "cpu-simd"})
    EXPECT_NE(r.output.find(v), std::string::npos) << v;
  EXPECT_NE(r.output.find("32x8"), std::string::npos);
  // The columns line up whatever the names and tile lists: each row's masks and description start
  // where the header's do, and a tile list that does not fit its column goes on below.
  std::istringstream lines(r.output);
  std::string line;
  std::size_t masksAt = std::string::npos, tilesAt = std::string::npos, descriptionAt = std::string::npos;
  std::map<std::string, std::string> masks, frames;
  int continued = 0;
  std::size_t framesAt = std::string::npos;
  std::string last;  // the variant of the row a next line continues
  while (std::getline(lines, line)) {
    if (line.rfind("variant ", 0) == 0) {
      masksAt = line.find("masks");
      tilesAt = line.find("tiles");
      descriptionAt = line.find("description");
      framesAt = line.find("frames");
      continue;
    }
    if (descriptionAt == std::string::npos) continue;
    if (line.empty()) break;  // the table's end: the note on masks follows
    const std::string name = line.substr(0, line.find(' '));
    if (name.empty()) {  // a tile list's next line (tiles only), or the frames' (then maybe tiles)
      ++continued;
      const std::size_t first = line.find_first_not_of(' ');
      EXPECT_TRUE(first == tilesAt || first == framesAt) << line;
      if (first == framesAt) frames[last] += " " + line.substr(framesAt, line.find("  ", framesAt) - framesAt);
      continue;
    }
    last = name;
    ASSERT_NE(findVariant(name), nullptr) << line;
    EXPECT_EQ(line[descriptionAt - 1], ' ') << line;
    EXPECT_NE(line[descriptionAt], ' ') << line;
    EXPECT_EQ(line.substr(descriptionAt, 20), findVariant(name)->description.substr(0, 20)) << line;
    const std::size_t end = line.find("  ", masksAt);
    masks[name] = line.substr(masksAt, end - masksAt);
    frames[name] = line.substr(framesAt, line.find("  ", framesAt) - framesAt);
  }
  EXPECT_EQ(masks.size(), variants().size());
  EXPECT_GT(continued, 0) << "tensorstream's 14 tiles need more than one line";
  EXPECT_EQ(masks["naive"], "any");
  EXPECT_EQ(masks["separable"], "separable");
  EXPECT_EQ(masks["tensor2d"], "one");
  EXPECT_EQ(masks["tensorstream"], "low rank");
  EXPECT_EQ(masks["stream"], "one separable, 5x5");
  // The variants that write f32 from u8 frames say so; the others do not.
  for (const Variant& v : variants())
    EXPECT_EQ(frames[v.name].find("+f32") != std::string::npos, v.floatOutput) << v.name << ": " << frames[v.name];
  EXPECT_EQ(frames["sweep"], "all +f32");
  EXPECT_EQ(frames["tensorstream"], "u8x1,3,4 u16x1,4 f16x1,4 f32x1") << "its frames on four lines, read as one";
  EXPECT_EQ(frames["naive"], "u8x4");
}

// With COLUMNS set (as a terminal's width is), every line fits it: the descriptions go on below
// in their own column, beside the tile lists' next lines, and say the same words.
TEST_F(StillCommand, ListVariantsWrapsToTheTerminalsWidth) {
  const auto r = convlive::testing::runConvliveWith("list variants", "env COLUMNS=110");
  ASSERT_EQ(r.code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line, name;
  std::size_t descriptionAt = std::string::npos;
  std::map<std::string, std::string> described;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 110u) << line;
    if (line.rfind("variant ", 0) == 0) {
      descriptionAt = line.find("description");
      continue;
    }
    if (descriptionAt == std::string::npos) continue;
    if (line.empty()) break;
    if (line[0] != ' ') name = line.substr(0, line.find(' '));
    if (line.size() > descriptionAt) {
      EXPECT_EQ(line[descriptionAt - 1], ' ') << line;
      described[name] += (described[name].empty() ? "" : " ") + line.substr(descriptionAt);
    }
  }
  ASSERT_EQ(described.size(), variants().size()) << r.output;
  for (const Variant& v : variants())
    EXPECT_EQ(described[v.name].substr(0, v.description.size()), v.description) << v.name;
  EXPECT_GT(std::count(r.output.begin(), r.output.end(), '\n'), long(variants().size()) + 20) << "nothing wrapped";
}

TEST_F(StillCommand, TuneFillsTheCacheOrSaysWhyItCannot) {
  const std::string cache = path("tune.json");
  const auto r = convlive::testing::runConvliveWith("--tune", "env CONVLIVE_TUNE_CACHE=" + cache);
  if (!deviceInfo().available) {
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("without a GPU, auto is the cpu-simd variant"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(cache));
    return;
  }
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("3840x2160  gaussian"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(cache));
  const auto again = convlive::testing::runConvliveWith("--tune", "env CONVLIVE_TUNE_CACHE=" + cache);
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(again.output.find("measured"), std::string::npos) << "every case should come from the cache";
}

TEST_F(StillCommand, GpuVariantWithoutDeviceNamesTheCpuVariant) {
  const auto r = runConvlive("image " + path("in.png") + " " + path("out.png") + " --variant tiled");
  if (deviceInfo().available) {
    EXPECT_EQ(r.code, 0) << r.output;
  } else {
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--variant cpu"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(path("out.png")));
  }
}

TEST_F(StillCommand, AutoFallsBackToTheCpuWithoutDevice) {
  const auto r = runConvlive("--image " + path("in.png") + " --output " + path("out.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("out.png")));
  if (!deviceInfo().available) {
    EXPECT_NE(r.output.find("running on the CPU"), std::string::npos) << r.output;
  }
}

TEST_F(StillCommand, BadArgumentsGiveOneLineAndExitCode2) {
  std::ofstream(path("text.png")) << "not a png at all";
  std::ofstream(path("trunc.png"), std::ios::binary) << "\x89PNG\r\n\x1a\n\0\0";
  fs::create_directories(path("adir.png"));
  std::ofstream(path("ragged.csv")) << "1,2,1\n1,2\n";
  std::ofstream(path("word.txt")) << "1 1 1\n# a comment\n1 1 abc\n1 1 1\n";
  std::ofstream(path("nan.txt")) << "1 nan 1\n";
  std::ofstream(path("even.txt")) << "1 1\n1 1\n";
  std::string wide;
  for (int i = 0; i < 131; ++i) wide += "1 ";
  std::ofstream(path("wide.txt")) << wide << "\n";
  std::ofstream(path("empty.txt")).flush();
  const std::string header = "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 1), }\n";
  std::ofstream(path("f16.npy"), std::ios::binary)
      << std::string("\x93NUMPY\x01\x00", 8) << char(header.size()) << '\0' << header << std::string(2, '\0');
  const std::string in = " --input " + path("in.png"), out = " --output " + path("out.png"), cpu = " --variant cpu";
  const std::pair<std::string, std::string> cases[] = {
      {"image --mask blurry" + in + out + cpu, "--mask: 'blurry' is not one: use one of box"},
      {"image --mask gaussian --radius 0" + in + out + cpu, "--radius: 0 is out of range: use 1..64"},
      {"image --mask box --radius 99" + in + out + cpu, "1..64"},
      {"image --mask gaussian --radius 40 --variant tiled" + in + out,
       "up to 32 (asked for 40): use --variant separable"},
      {"image --mask emboss --variant separable" + in + out, "not separable"},
      {"image --mask custom --weights \"1,nan,1\"" + in + out + cpu, "finite"},
      {"image --mask custom --weights \"1,,1\"" + in + out + cpu, "empty value between commas"},
      {"image --mask custom --weights \"1,2,1;1,2\"" + in + out + cpu, "ragged"},
      {"image --mask custom" + in + out + cpu, "needs weights"},
      {"image --mask custom --weights ''" + in + out + cpu, "--weights: are empty"},
      {"image --mask pitch --pitch 0.2" + in + out + cpu, "--pitch: 0.2 is out of range"},
      {"image --sigma 0" + in + out + cpu, "--sigma: 0 is out of range: use 0.1..64 (or auto"},
      {"image --sigma -1" + in + out + cpu, "out of range"},
      {"image --border reflect" + in + out + cpu, "'reflect' is not a border mode"},
      {"image --variant fastest" + in + out, "--variant: 'fastest' is not one"},
      {"image --tile 32by8 --variant tiled" + in + out, "not WxH"},
      {"image --tile 7x7 --variant tiled" + in + out, "no tile 7x7"},
      {"image --tile 32x8 --variant cpu" + in + out, "cpu has no tile shapes"},
      {"image --tile 32x8" + in + out, "use --variant fused"},
      {"image --direction up --mask pitch" + in + out + cpu, "horizontal, vertical"},
      {"image --input " + path("missing.png") + out + cpu, "no such file"},
      {"image --input " + path("adir.png") + out + cpu, "directory"},
      {"image --input " + path("text.png") + out + cpu, "is neither a PNG, a JPEG, a TIFF nor a NumPy .npy file"},
      {"image --input " + path("trunc.png") + out + cpu, "not a readable PNG"},
      {"image" + in + " --output " + path("nodir/out.png") + cpu, "does not exist"},
      {"image" + in + " --output " + path("out.gif") + cpu,
       "'.gif' is not a picture format: end it in .png, .jpg, .jpeg, .tif, .tiff or .npy"},
      {"image" + in + " --output " + path("out") + cpu,
       "no extension: end it in .png, .jpg, .jpeg, .tif, .tiff or .npy"},
      {"image --quality 80" + in + out + cpu, "--quality is for JPEG output"},
      {"image --quality 80" + in + " --output " + path("out.npy") + cpu, "is a .npy (lossless)"},
      {"image --quality 0" + in + " --output " + path("out.jpg") + cpu, "--quality 0 is out of range: use 1..100"},
      {"image --weights-file " + path("missing.txt") + in + out + cpu,
       "--weights-file: '" + path("missing.txt") + "' does not exist"},
      {"image --weights-file " + path("adir.png") + in + out + cpu, "is a folder"},
      {"image --weights-file " + path("ragged.csv") + in + out + cpu,
       "is ragged: row 1 (line 1) has 3 values, row 2 (line 2) has 2"},
      {"image --weights-file " + path("word.txt") + in + out + cpu, "row 2, column 3 (line 3): 'abc' is not a number"},
      {"image --weights-file " + path("nan.txt") + in + out + cpu, "'nan' is not a finite number"},
      {"image --weights-file " + path("even.txt") + in + out + cpu, "are 2x2: use an odd square"},
      {"image --weights-file " + path("wide.txt") + in + out + cpu, "more than 129 columns"},
      {"image --weights-file " + path("empty.txt") + in + out + cpu, "holds no numbers"},
      {"image --weights-file " + path("f16.npy") + in + out + cpu, "holds float16 data"},
      {"image --weights-file " + path("ragged.csv") + " --weights 1" + in + out + cpu,
       "--weights-file: the custom mask is given 2 ways"},
      {"image --row-weights 1,2" + in + out + cpu, "--row-weights: have 2 values: use an odd count"},
      {"image --col-weights 1,x,1" + in + out + cpu, "--col-weights: value 2: 'x' is not a number"},
      {"image" + out + cpu, "name the picture to filter"},
      {"image --radius two" + in + out, "--radius: 'two' is not a whole number"},
      {"image --report r.json" + in + out, "--report is not an option of convlive image"},
      {"image --frames 3" + in + out, "--frames is not an option of convlive image"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = runConvlive(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(path("out.png"))) << args;
  }
}

// The old flag forms still run, with a note that names the new command.
TEST_F(StillCommand, OldFlagFormWorksWithANote) {
  const auto r = runConvlive("--image " + path("in.png") + " --output " + path("out.png") + " --variant cpu");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("old form of `convlive image"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(path("out.png")));
  // Flags of another mode are refused instead of ignored.
  const auto both = runConvlive("--image " + path("in.png") + " --input clip.webm --output " + path("o2.png"));
  EXPECT_EQ(both.code, 2) << both.output;
  EXPECT_NE(both.output.find("give one"), std::string::npos) << both.output;
  const auto report = runConvlive("--image " + path("in.png") + " --output " + path("o3.png") + " --report r.json");
  EXPECT_EQ(report.code, 2) << report.output;
  EXPECT_NE(report.output.find("--report is not an option of convlive image"), std::string::npos) << report.output;
  EXPECT_FALSE(fs::exists(path("o2.png")));
  EXPECT_FALSE(fs::exists(path("o3.png")));
}

// --output naming the input (or a link to it) is refused, and the input is left as it was.
TEST_F(StillCommand, OutputThatIsTheInputIsRefused) {
  const auto before = fs::file_size(path("in.png"));
  fs::create_symlink(path("in.png"), path("link.png"));
  for (const std::string& out : {path("in.png"), path("link.png")}) {
    const auto r = runConvlive("image " + path("in.png") + " " + out + " --variant cpu --radius 3");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("is the input picture"), std::string::npos) << r.output;
  }
  EXPECT_EQ(fs::file_size(path("in.png")), before);
}

// Masks from a file (text or NumPy) and from row/column factors give what the same weights typed
// as a grid give; weights given without --mask ask for the custom mask.
TEST_F(StillCommand, WeightsFileAndFactorsGiveTheEquivalentMask) {
  const std::string io = " " + path("in.png") + " " + path("out.png") + " --variant cpu --border mirror";
  HostImage want(in_.width(), in_.height());
  Filter f;
  f.mask = parseCustomMask("1,2,1;2,4,2;1,2,1", true);
  referenceFilter(f, Border::Mirror, false, in_.view(), want.view());

  std::ofstream(path("blur.csv")) << "# binomial 3x3\n1,2,1\n2,4,2\n1,2,1\n";
  auto r = runConvlive("image --mask custom --weights-file " + path("blur.csv") + " --normalize" + io);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);

  r = runConvlive("image --row-weights 1,2,1 --col-weights 1,2,1 --normalize" + io);  // no --mask: custom
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("custom r=1"), std::string::npos) << r.output;
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);

  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0) {
    const std::string make = "/usr/bin/python3 -c \"import numpy as np; np.save('" + path("blur.npy") +
                             "', np.asfortranarray(np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32)))\"";
    ASSERT_EQ(std::system(make.c_str()), 0);
    r = runConvlive("image --weights-file " + path("blur.npy") + " --normalize" + io);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);
  }

  // Unequal factors: a 1x5 row and a 3x1 column are the 5x5 grid with zero top and bottom rows.
  r = runConvlive("image --row-weights '1 4 6 4 1' --col-weights 1,2,1" + io);
  ASSERT_EQ(r.code, 0) << r.output;
  f.mask = parseCustomMask("0,0,0,0,0;1,4,6,4,1;2,8,12,8,2;1,4,6,4,1;0,0,0,0,0", false);
  referenceFilter(f, Border::Mirror, false, in_.view(), want.view());
  EXPECT_EQ(maxDiff(readPng(path("out.png")), want), 0);
}

namespace {

std::string fileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// The rows of a PNG of `width` x `height` pixels of `channels` values each, from `values` (host
// order): 8-bit as they are, 16-bit big-endian as PNG stores them.
std::vector<std::string> pngRows(int width, int height, int channels, int bits, const std::vector<int>& values) {
  std::vector<std::string> rows;
  for (int y = 0; y < height; ++y) {
    std::string r;
    for (int i = 0; i < width * channels; ++i) {
      const int v = values[std::size_t(y) * std::size_t(width * channels) + std::size_t(i)];
      if (bits == 16) r += char(v >> 8);
      r += char(v & 0xff);
    }
    rows.push_back(r);
  }
  return rows;
}

// `values` as the bytes of a u8 or u16 picture (host order).
std::vector<unsigned char> asBytes(const std::vector<int>& values, PixelType type) {
  std::vector<unsigned char> b(values.size() * pixelTypeBytes(type));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == PixelType::U8) {
      b[i] = static_cast<unsigned char>(values[i]);
    } else {
      const auto v = static_cast<std::uint16_t>(values[i]);
      std::memcpy(&b[2 * i], &v, 2);
    }
  }
  return b;
}

std::vector<int> randomValues(std::size_t n, int max, std::mt19937& rng) {
  std::vector<int> v(n);
  for (int& x : v) x = int(rng() % std::uint32_t(max + 1));
  return v;
}

// The largest difference between two pictures' values of `desc`: in LSB for integers, in ulps for
// f16 (the bit patterns' distance, sign and magnitude ordered), absolute for f32.
double largestDifference(const ImageDesc& desc, const std::vector<unsigned char>& a,
                         const std::vector<unsigned char>& b) {
  EXPECT_EQ(a.size(), b.size());
  const std::size_t size = pixelTypeBytes(desc.type);
  double worst = 0;
  for (std::size_t i = 0; i + size <= std::min(a.size(), b.size()); i += size) {
    double d = 0;
    switch (desc.type) {
      case PixelType::U8:
        d = std::abs(int(a[i]) - int(b[i]));
        break;
      case PixelType::U16:
      case PixelType::F16: {
        std::uint16_t x, y;
        std::memcpy(&x, &a[i], 2);
        std::memcpy(&y, &b[i], 2);
        if (desc.type == PixelType::U16) {
          d = std::abs(int(x) - int(y));
        } else {
          const auto ordered = [](std::uint16_t h) { return h & 0x8000 ? -int(h & 0x7fff) : int(h); };
          d = std::isnan(halfToFloat(x)) || std::isnan(halfToFloat(y)) ? 1e9 : std::abs(ordered(x) - ordered(y));
        }
        break;
      }
      case PixelType::F32: {
        float x, y;
        std::memcpy(&x, &a[i], 4);
        std::memcpy(&y, &b[i], 4);
        d = std::isfinite(x) && std::isfinite(y) ? std::fabs(double(x) - double(y)) : 1e9;
        break;
      }
    }
    worst = std::max(worst, d);
  }
  return worst;
}

// What the reference makes of `in` (desc's bytes) with `mask` r=radius and `border`.
std::vector<unsigned char> referenceOf(const ImageDesc& desc, const std::vector<unsigned char>& in,
                                       const std::string& mask, int radius, Border border) {
  std::vector<unsigned char> out(desc.span());
  referenceFrames(makeFilter(mask, {.radius = radius}), border, false, desc, in.data(), out.data());
  return out;
}

ImageDesc descOf(int width, int height, PixelType type, int channels) {
  ImageDesc d;
  d.width = width;
  d.height = height;
  d.type = type;
  d.channels = channels;
  d.alpha = channels == 4;
  return d;
}

}  // namespace

// A grey PNG is filtered as one 8-bit channel and written as a grey PNG: the reference's result
// (within 1 LSB), with the type in the summary; auto (the default) takes it too.
TEST_F(StillCommand, GreyPngStaysGrey) {
  std::mt19937 rng(std::random_device{}());
  const std::vector<int> values = randomValues(37 * 23, 255, rng);
  std::ofstream(path("grey.png"), std::ios::binary)
      << convlive::testing::pngFile(37, 23, 8, 0, pngRows(37, 23, 1, 8, values));
  const ImageDesc desc = descOf(37, 23, PixelType::U8, 1);
  const auto want = referenceOf(desc, asBytes(values, PixelType::U8), "gaussian", 3, Border::Mirror);
  for (const std::string variant : {" --variant cpu", ""}) {
    const auto r = runConvlive("image " + path("grey.png") + " " + path("out.png") +
                               " --mask gaussian --radius 3 --border mirror" + variant);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("(37x23 u8x1) -> " + path("out.png")), std::string::npos) << r.output;
    const std::string png = fileBytes(path("out.png"));
    ASSERT_GT(png.size(), 26u);
    EXPECT_EQ(int(png[24]), 8) << "bit depth";
    EXPECT_EQ(int(png[25]), 0) << "colour type: grey";
    const DecodedPicture got = readPicture(path("out.png"));
    ASSERT_EQ(got.picture.desc, desc) << got.picture.desc.str();
    EXPECT_LE(largestDifference(desc, got.picture.bytes, want), 1.0) << variant;
  }
  // To JPEG: a grey JPEG, which comes back grey.
  const auto r = runConvlive("image " + path("grey.png") + " " + path("out.jpg") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(readPicture(path("out.jpg")).picture.desc.str(), "37x23 u8x1");
}

// A 16-bit PNG is filtered at 16 bits and written as a 16-bit PNG, in each of its colour types.
TEST_F(StillCommand, SixteenBitPngStaysSixteenBit) {
  std::mt19937 rng(std::random_device{}());
  for (const auto& [channels, colourType] : {std::pair{1, 0}, std::pair{3, 2}, std::pair{4, 6}}) {
    const std::vector<int> values = randomValues(std::size_t(29 * 17 * channels), 65535, rng);
    std::ofstream(path("deep.png"), std::ios::binary)
        << convlive::testing::pngFile(29, 17, 16, colourType, pngRows(29, 17, channels, 16, values));
    const ImageDesc desc = descOf(29, 17, PixelType::U16, channels);
    const auto want = referenceOf(desc, asBytes(values, PixelType::U16), "box", 2, Border::Clamp);
    const auto r = runConvlive("image " + path("deep.png") + " " + path("out.png") +
                               " --variant cpu --mask box --radius 2 --border clamp");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "the summary only, no warning\n" << r.output;
    EXPECT_NE(r.output.find("(" + desc.str() + ")"), std::string::npos) << r.output;
    const std::string png = fileBytes(path("out.png"));
    ASSERT_GT(png.size(), 26u);
    EXPECT_EQ(int(png[24]), 16) << "bit depth";
    EXPECT_EQ(int(png[25]), colourType) << "colour type";
    const DecodedPicture got = readPicture(path("out.png"));
    ASSERT_EQ(got.picture.desc, desc) << got.picture.desc.str();
    EXPECT_LE(largestDifference(desc, got.picture.bytes, want), 1.0) << desc.str();
  }
  // Flat channels of 1000, 12345 and 54321 stay those values exactly: 8 bits could hold none of
  // them (the nearest are 4 x 257 = 1028, 48 x 257 = 12336 and 211 x 257 = 54227).
  std::vector<int> flat;
  for (int i = 0; i < 9 * 5; ++i) flat.insert(flat.end(), {1000, 12345, 54321});
  std::ofstream(path("flat.png"), std::ios::binary)
      << convlive::testing::pngFile(9, 5, 16, 2, pngRows(9, 5, 3, 16, flat));
  const auto r = runConvlive("image " + path("flat.png") + " " + path("flat-out.png") +
                             " --variant cpu --mask gaussian --radius 2");
  ASSERT_EQ(r.code, 0) << r.output;
  const DecodedPicture got = readPicture(path("flat-out.png"));
  ASSERT_EQ(got.picture.desc.str(), "9x5 u16x3");
  EXPECT_EQ(got.picture.bytes, asBytes(flat, PixelType::U16));
}

// An RGB PNG stays RGB (no alpha added); grey+alpha and palette PNGs come in expanded.
TEST_F(StillCommand, RgbStaysRgbGreyAlphaAndPaletteExpand) {
  std::mt19937 rng(std::random_device{}());
  const std::vector<int> values = randomValues(31 * 19 * 3, 255, rng);
  std::ofstream(path("rgb.png"), std::ios::binary)
      << convlive::testing::pngFile(31, 19, 8, 2, pngRows(31, 19, 3, 8, values));
  const ImageDesc desc = descOf(31, 19, PixelType::U8, 3);
  const auto want = referenceOf(desc, asBytes(values, PixelType::U8), "sharpen", 2, Border::Wrap);
  auto r = runConvlive("image " + path("rgb.png") + " " + path("out.png") +
                       " --variant cpu --mask sharpen --radius 2 --border wrap");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(31x19 u8x3)"), std::string::npos) << r.output;
  EXPECT_EQ(int(fileBytes(path("out.png"))[25]), 2) << "colour type: RGB";
  DecodedPicture got = readPicture(path("out.png"));
  ASSERT_EQ(got.picture.desc, desc) << got.picture.desc.str();
  EXPECT_LE(largestDifference(desc, got.picture.bytes, want), 1.0);

  // Grey+alpha (2 pixels): RGBA, grey copied to red, green and blue; the alpha passes through.
  std::ofstream(path("ga.png"), std::ios::binary)
      << convlive::testing::pngFile(2, 1, 8, 4, {std::string("\x10\x80\xF0\xFF", 4)});
  r = runConvlive("image " + path("ga.png") + " " + path("out.png") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  got = readPicture(path("out.png"));
  EXPECT_EQ(got.picture.desc.str(), "2x1 u8x4");
  EXPECT_EQ(got.picture.bytes, (std::vector<std::uint8_t>{16, 16, 16, 128, 240, 240, 240, 255}));
  // Palette (a red and a half-transparent blue): RGBA; without tRNS it would be RGB.
  std::ofstream(path("pal.png"), std::ios::binary) << convlive::testing::pngFile(
      2, 1, 8, 3, {std::string("\x00\x01", 2)}, std::string("\xFF\x00\x00\x00\x00\xFF", 6), std::string("\xFF\x80", 2));
  r = runConvlive("image " + path("pal.png") + " " + path("out.png") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  got = readPicture(path("out.png"));
  EXPECT_EQ(got.picture.bytes, (std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 255, 128}));
}

// .npy pictures of float32, float16 and uint16 are filtered in their type and written as .npy:
// within the accuracy contract of the reference (f32 within f32Bound, f16 within 1 ulp, u16
// within 1 LSB), the same shape and dtype.
TEST_F(StillCommand, NpyFloatAndSixteenBitRoundTrip) {
  std::mt19937 rng(std::random_device{}());
  struct Case {
    const char* descr;
    PixelType type;
    int channels;  // 0: shape (H, W)
  };
  for (const Case c : {Case{"<f4", PixelType::F32, 3}, Case{"<f2", PixelType::F16, 0}, Case{"<u2", PixelType::U16, 4},
                       Case{"<f4", PixelType::F32, 1}}) {
    const int channels = std::max(c.channels, 1);
    const ImageDesc desc = descOf(27, 13, c.type, channels);
    std::vector<unsigned char> in(desc.span());
    std::uniform_real_distribution<double> u(-1.0, 2.0);
    for (std::size_t i = 0; i < in.size(); i += pixelTypeBytes(c.type)) {
      if (c.type == PixelType::F32) {
        const float f = float(u(rng));
        std::memcpy(&in[i], &f, 4);
      } else if (c.type == PixelType::F16) {
        const std::uint16_t h = halfFromDouble(u(rng));
        std::memcpy(&in[i], &h, 2);
      } else {
        const auto v = std::uint16_t(rng());
        std::memcpy(&in[i], &v, 2);
      }
    }
    const std::string shape = c.channels ? "(13, 27, " + std::to_string(c.channels) + ")" : "(13, 27)";
    std::ofstream(path("in.npy"), std::ios::binary)
        << convlive::testing::npyFile(c.descr, shape, std::string(in.begin(), in.end()));
    const auto r = runConvlive("image " + path("in.npy") + " " + path("out.npy") +
                               " --variant cpu --mask gaussian --radius 4 --border mirror");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("(" + desc.str() + ")"), std::string::npos) << r.output;
    const DecodedPicture got = readPicture(path("out.npy"));
    ASSERT_EQ(got.picture.desc, desc) << got.picture.desc.str();
    const auto want = referenceOf(desc, in, "gaussian", 4, Border::Mirror);
    const double bound = c.type == PixelType::F32 ? f32Bound(makeFilter("gaussian", {.radius = 4}).mask, 2.0) : 1.0;
    EXPECT_LE(largestDifference(desc, got.picture.bytes, want), bound) << desc.str();
    // The file is the dtype and shape that came in (the header as numpy.save writes it).
    const std::string out = fileBytes(path("out.npy"));
    EXPECT_NE(out.find("'descr': '" + std::string(c.descr) + "'"), std::string::npos) << out.substr(0, 128);
    EXPECT_NE(out.find("'shape': " + (c.channels == 1 ? "(13, 27)" : shape)), std::string::npos) << out.substr(0, 128);
  }
}

// --float: an 8-bit picture's result written as f32 values (.npy, .tif), the filtered sums neither
// rounded nor clamped (sharpen past 0 and 255), within f32's bound of the double reference; other
// pictures and formats that hold no floats are refused, and nothing is written.
TEST_F(StillCommand, FloatWritesAnEightBitPicturesSumsAsF32) {
  std::mt19937 rng(std::random_device{}());
  for (const int channels : {1, 3}) {
    const ImageDesc desc = descOf(27, 13, PixelType::U8, channels);
    std::vector<unsigned char> in(desc.span());
    for (auto& b : in) b = static_cast<unsigned char>(rng() >> 24);
    const std::string shape = "(13, 27, " + std::to_string(channels) + ")";
    std::ofstream(path("in.npy"), std::ios::binary)
        << convlive::testing::npyFile("|u1", shape, std::string(in.begin(), in.end()));
    for (const char* out : {"out.npy", "out.tif"}) {
      const auto r = runConvlive("image " + path("in.npy") + " " + path(out) + " --float --mask sharpen --radius 2");
      ASSERT_EQ(r.code, 0) << r.output;
      EXPECT_NE(r.output.find("(f32)"), std::string::npos) << r.output;
      const DecodedPicture got = readPicture(path(out));
      const ImageDesc f32 = outputDesc(desc, PixelType::F32);
      ASSERT_EQ(got.picture.desc.str(), f32.str());
      std::vector<unsigned char> want(f32.span());
      const Filter sharpen = makeFilter("sharpen", {.radius = 2});
      referenceFrames(sharpen, Border::Clamp, false, desc, in.data(), f32, want.data());
      EXPECT_LE(largestDifference(f32, got.picture.bytes, want), f32Bound(sharpen.mask, 255.0)) << out;
      float lo = 0, hi = 0;
      for (std::size_t i = 0; i < got.picture.bytes.size(); i += 4) {
        float v;
        std::memcpy(&v, &got.picture.bytes[i], 4);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      EXPECT_LT(lo, 0.f) << out << ": sharpen's undershoot kept";
      EXPECT_GT(hi, 255.f) << out << ": sharpen's overshoot kept";
    }
  }
  const auto png = runConvlive("image " + path("in.npy") + " " + path("f.png") + " --float");
  EXPECT_EQ(png.code, 2) << png.output;
  EXPECT_NE(png.output.find("--float writes f32 values, which a PNG cannot hold"), std::string::npos) << png.output;
  EXPECT_FALSE(std::filesystem::exists(path("f.png")));
  std::vector<unsigned char> wide(descOf(5, 4, PixelType::U16, 1).span(), 7);
  std::ofstream(path("u16.npy"), std::ios::binary)
      << convlive::testing::npyFile("<u2", "(4, 5)", std::string(wide.begin(), wide.end()));
  const auto u16 = runConvlive("image " + path("u16.npy") + " " + path("f.npy") + " --float");
  EXPECT_EQ(u16.code, 2) << u16.output;
  EXPECT_NE(u16.output.find("filtered in its own type"), std::string::npos) << u16.output;
  EXPECT_FALSE(std::filesystem::exists(path("f.npy")));
}

// TIFF pictures of float32, float16, uint16 and uint8 are filtered in their type and written as TIFF
// of that type, within the accuracy contract, as .npy ones are.
TEST_F(StillCommand, TiffKeepsItsTypeAndChannels) {
  std::mt19937 rng(std::random_device{}());
  for (const auto& [type, channels] : {std::pair{PixelType::F32, 3}, std::pair{PixelType::F16, 1},
                                       std::pair{PixelType::U16, 4}, std::pair{PixelType::U8, 1}}) {
    Picture p = Picture::make(27, 13, type, channels);
    std::uniform_real_distribution<double> u(-1.0, 2.0);
    for (std::size_t i = 0; i < p.bytes.size(); i += pixelTypeBytes(type)) {
      if (type == PixelType::F32) {
        const float f = float(u(rng));
        std::memcpy(&p.bytes[i], &f, 4);
      } else if (type == PixelType::F16) {
        const std::uint16_t h = halfFromDouble(u(rng));
        std::memcpy(&p.bytes[i], &h, 2);
      } else {
        const auto v = std::uint16_t(rng());
        std::memcpy(&p.bytes[i], &v, pixelTypeBytes(type));
      }
    }
    writePicture(path("in.tif"), p, PictureFormat::Tiff);
    const auto r = runConvlive("image " + path("in.tif") + " " + path("out.tiff") +
                               " --variant cpu --mask gaussian --radius 4 --border mirror");
    ASSERT_EQ(r.code, 0) << r.output;
    const DecodedPicture got = readPicture(path("out.tiff"));
    ASSERT_EQ(got.picture.desc, p.desc) << got.picture.desc.str();
    const std::vector<unsigned char> in(p.bytes.begin(), p.bytes.end());
    const auto want = referenceOf(p.desc, in, "gaussian", 4, Border::Mirror);
    const double bound = type == PixelType::F32 ? f32Bound(makeFilter("gaussian", {.radius = 4}).mask, 2.0) : 1.0;
    EXPECT_LE(largestDifference(p.desc, got.picture.bytes, want), bound) << p.desc.str();
  }
}

// What an output format cannot hold, and a .npy convlive cannot read, are refused before any
// filtering, in one line that says what to do; nothing is written.
TEST_F(StillCommand, PicturesTheOutputCannotHoldAndBadNpyAreRefused) {
  using convlive::testing::npyFile;
  std::ofstream(path("deep.png"), std::ios::binary)
      << convlive::testing::pngFile(3, 3, 16, 0, std::vector<std::string>(3, std::string(6, '\x12')));
  std::ofstream(path("f32.npy"), std::ios::binary) << npyFile("<f4", "(3, 5, 3)", std::string(180, '\0'));
  std::ofstream(path("f16.npy"), std::ios::binary) << npyFile("<f2", "(3, 5)", std::string(30, '\0'));
  std::ofstream(path("big.npy"), std::ios::binary) << npyFile(">f4", "(3, 5)", std::string(60, '\0'));
  std::ofstream(path("f64.npy"), std::ios::binary) << npyFile("<f8", "(3, 5)", std::string(120, '\0'));
  std::ofstream(path("fortran.npy"), std::ios::binary) << npyFile("<f4", "(3, 5)", std::string(60, '\0'), 1, "True");
  std::ofstream(path("chw.npy"), std::ios::binary) << npyFile("<u2", "(3, 5, 7)", std::string(210, '\0'));
  const std::string cpu = " --variant cpu";
  const std::pair<std::string, std::string> cases[] = {
      {path("deep.png") + " " + path("out.jpg"),
       "--output '" + path("out.jpg") + "': '" + path("deep.png") +
           "' is 3x3 u16x1, and a JPEG holds 8-bit samples: write a .png (16 bits) or a .npy to keep them"},
      {path("f32.npy") + " " + path("out.png"),
       "' is 5x3 f32x3, and a PNG holds 8- or 16-bit integer samples: write a .npy to keep the floats"},
      {path("f16.npy") + " " + path("out.jpg"), "' is 5x3 f16x1, and a JPEG holds 8-bit samples: write a .npy"},
      {path("big.npy") + " " + path("out.npy"), "holds big-endian float32 data (dtype '>f4')"},
      {path("f64.npy") + " " + path("out.npy"), "holds float64 data (dtype '<f8')"},
      {path("f64.npy") + " " + path("out.npy"), "save it as float32: a.astype('float32')"},
      {path("fortran.npy") + " " + path("out.npy"), "is in Fortran (column-major) order"},
      {path("chw.npy") + " " + path("out.npy"), "for channels first (C, H, W): a.transpose(1, 2, 0)"},
  };
  for (const auto& [io, message] : cases) {
    const std::string args = "image " + io + (io.find("--variant") == std::string::npos ? cpu : "");
    const auto r = runConvlive(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << "\n" << r.output;
    for (const char* out : {"out.jpg", "out.png", "out.npy"}) EXPECT_FALSE(fs::exists(path(out))) << args;
  }
  // cpu-simd, like the reference, filters float frames (it refused them once).
  const auto r = runConvlive("image " + path("f32.npy") + " " + path("out.npy") + " --variant cpu-simd");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("out.npy")));
}

TEST_F(StillCommand, JpegInAndOutWithQuality) {
  // A smooth picture: JPEG's loss on noise would say little.
  HostImage smooth(64, 48);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      std::uint8_t* p = smooth.view().row(y) + 4 * x;
      p[0] = std::uint8_t(4 * x), p[1] = std::uint8_t(5 * y), p[2] = 128, p[3] = 255;
    }
  writePng(path("smooth.png"), smooth);
  const std::string id = " --variant cpu --weights 1";
  auto r = runConvlive("image " + path("smooth.png") + " " + path("out.jpg") + id);
  ASSERT_EQ(r.code, 0) << r.output;
  const HostImage jpeg = readPng(path("out.jpg"));
  EXPECT_EQ(readPicture(path("out.jpg")).picture.desc.str(), "64x48 u8x3");
  EXPECT_LE(maxDiff(jpeg, smooth), 8);
  r = runConvlive("image " + path("smooth.png") + " " + path("low.JPEG") + id + " --quality 20");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_LT(fs::file_size(path("low.JPEG")), fs::file_size(path("out.jpg")));

  // JPEG in, PNG out: the decoded JPEG as it is, RGB.
  r = runConvlive("image " + path("out.jpg") + " " + path("back.png") + id);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("(64x48 u8x3)"), std::string::npos) << r.output;
  EXPECT_EQ(readPicture(path("back.png")).picture.desc.str(), "64x48 u8x3");
  EXPECT_EQ(maxDiff(readPng(path("back.png")), jpeg), 0);

  // Transparency does not survive JPEG: said in one warning line.
  r = runConvlive("image " + path("in.png") + " " + path("noisy.jpg") + id);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: JPEG has no alpha channel"), std::string::npos) << r.output;

  // A truncated JPEG is refused, and nothing is written.
  std::ifstream whole(path("out.jpg"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  std::ofstream(path("cut.jpg"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  r = runConvlive("image " + path("cut.jpg") + " " + path("cut-out.png") + id);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("is not a readable JPEG (corrupt or truncated"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("cut-out.png")));
}

// The output's extension is checked before anything is read or filtered; the input is never
// written; no temporary file is left behind.
TEST_F(StillCommand, UnknownExtensionFirstInputNeverOverwrittenNoTemporaries) {
  auto r = runConvlive("image " + path("missing.png") + " " + path("out.bmp") + " --variant cpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("'.bmp' is not a picture format: end it in .png, .jpg, .jpeg, .tif, .tiff or .npy"),
            std::string::npos)
      << r.output;
  writePicture(path("in.jpg"), in_, PictureFormat::Jpeg);
  const auto before = fs::file_size(path("in.jpg"));
  r = runConvlive("image " + path("in.jpg") + " " + path("in.jpg") + " --variant cpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("is the input picture"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(path("in.jpg")), before);
  fs::create_directories(path("taken.png"));  // the output's name is a folder: the rename fails
  r = runConvlive("image " + path("in.png") + " " + path("taken.png") + " --variant cpu");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

// A picture whose header promises more than its bytes hold fails at once, in one line, with exit
// code 2 and nothing written; the pixel limit is the command's (StillOptions::maxPixels, the
// image command's --max-pixels); a 1x40000 strip is filtered on the CPU; a pipe as input is refused
// instead of waited on.
TEST_F(StillCommand, HostilePicturesFailAtOnceAndValidStripsAreFiltered) {
  std::ofstream(path("huge.png"), std::ios::binary)
      << convlive::testing::pngFile(30000, 30000, 8, 2, {std::string(3, '\x7f')});
  ASSERT_LT(fs::file_size(path("huge.png")), 100u);
  Result r = runConvlive("image " + path("huge.png") + " " + path("out.png") + " --variant cpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(r.output, "convlive: '" + path("huge.png") +
                          "' is corrupt or truncated: its header says 30000x30000, 2700030000 bytes of pixel rows, "
                          "and its 15 bytes of image data cannot hold them (deflate packs at most 1032 bytes into "
                          "one)\n");
  EXPECT_FALSE(fs::exists(path("out.png")));

  std::vector<std::string> rows(40000);
  for (std::size_t y = 0; y < rows.size(); ++y) rows[y] = std::string(1, char(y * 7));
  std::ofstream(path("strip.png"), std::ios::binary) << convlive::testing::pngFile(1, 40000, 8, 0, rows);
  r = runConvlive("image " + path("strip.png") + " " + path("strip-out.npy") + " --mask box --radius 2 --variant cpu");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(readPicture(path("strip-out.npy")).picture.desc.str(), "1x40000 u8x1");

  std::ostringstream log, err;
  StillOptions o{.input = path("strip.png"), .output = path("limited.png")};
  o.spec.variant = "cpu";
  o.maxPixels = 39999;
  EXPECT_EQ(runStill(o, log, err), 2);
  EXPECT_EQ(err.str(), "convlive: '" + path("strip.png") +
                           "' is 1x40000 = 40000 pixels, more than the limit of 39999 (--max-pixels raises it)\n");
  EXPECT_FALSE(fs::exists(path("limited.png")));

  ASSERT_EQ(::mkfifo(path("pipe.png").c_str(), 0600), 0);
  r = convlive::testing::runConvliveWith("image " + path("pipe.png") + " " + path("p.png"), "timeout 20");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("is not a regular file (a pipe, a socket or a device)"), std::string::npos) << r.output;
}
