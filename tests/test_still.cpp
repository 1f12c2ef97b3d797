// The still-image command line: its output, errors and exit codes (runs the real program).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "convlive/mask.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "image_compare.hpp"
#include "image_io.hpp"
#include "png_bytes.hpp"
#include "run_program.hpp"

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
  std::map<std::string, std::string> masks;
  int continued = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("variant ", 0) == 0) {
      masksAt = line.find("masks");
      tilesAt = line.find("tiles");
      descriptionAt = line.find("description");
      continue;
    }
    if (descriptionAt == std::string::npos) continue;
    if (line.empty()) break;  // the table's end: the note on masks follows
    const std::string name = line.substr(0, line.find(' '));
    if (name.empty()) {  // a tile list's next line: tiles only
      ++continued;
      EXPECT_EQ(line.find_first_not_of(' '), tilesAt) << line;
      continue;
    }
    ASSERT_NE(findVariant(name), nullptr) << line;
    EXPECT_EQ(line[descriptionAt - 1], ' ') << line;
    EXPECT_NE(line[descriptionAt], ' ') << line;
    EXPECT_EQ(line.substr(descriptionAt, 20), findVariant(name)->description.substr(0, 20)) << line;
    const std::size_t end = line.find("  ", masksAt);
    masks[name] = line.substr(masksAt, end - masksAt);
  }
  EXPECT_EQ(masks.size(), variants().size());
  EXPECT_GT(continued, 0) << "tensorstream's 14 tiles need more than one line";
  EXPECT_EQ(masks["naive"], "any");
  EXPECT_EQ(masks["separable"], "separable");
  EXPECT_EQ(masks["tensor2d"], "one");
  EXPECT_EQ(masks["tensorstream"], "one separable");
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
      {"image --input " + path("text.png") + out + cpu, "is neither a PNG nor a JPEG file"},
      {"image --input " + path("trunc.png") + out + cpu, "not a readable PNG"},
      {"image" + in + " --output " + path("nodir/out.png") + cpu, "does not exist"},
      {"image" + in + " --output " + path("out.gif") + cpu,
       "'.gif' is not a picture format: end it in .png, .jpg or .jpeg"},
      {"image" + in + " --output " + path("out") + cpu, "no extension: end it in .png, .jpg or .jpeg"},
      {"image --quality 80" + in + out + cpu, "--quality is for JPEG output"},
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

// A 16-bit RGBA PNG of `img` with each 8-bit sample v stored as v * 257 (exactly v at 8 bits).
std::string sixteenBitPng(const HostImage& img) {
  std::vector<std::string> rows;
  for (int y = 0; y < img.height(); ++y) {
    std::string r;
    for (int x = 0; x < img.width() * 4; ++x) {
      const std::uint8_t v = img.view().row(y)[x];
      r += char(v);
      r += char(v);
    }
    rows.push_back(r);
  }
  return convlive::testing::pngFile(img.width(), img.height(), 16, 6, rows);
}

}  // namespace

TEST_F(StillCommand, SixteenBitGreyAndPalettePngsIn) {
  std::ofstream(path("deep.png"), std::ios::binary) << sixteenBitPng(in_);
  auto r = runConvlive("image " + path("deep.png") + " " + path("out.png") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("convlive: warning: '" + path("deep.png") + "' has 16 bits per channel"), std::string::npos)
      << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;  // the warning and the summary
  EXPECT_EQ(maxDiff(readPng(path("out.png")), in_), 0);

  // Grey (2 pixels) and palette (a red and a half-transparent blue) filtered through identity.
  std::ofstream(path("grey.png"), std::ios::binary)
      << convlive::testing::pngFile(2, 1, 8, 0, {std::string("\x10\xF0", 2)});
  r = runConvlive("image " + path("grey.png") + " " + path("out.png") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  HostImage got = readPng(path("out.png"));
  EXPECT_EQ(got.pixels(), (std::vector<std::uint8_t>{16, 16, 16, 255, 240, 240, 240, 255}));
  std::ofstream(path("pal.png"), std::ios::binary) << convlive::testing::pngFile(
      2, 1, 8, 3, {std::string("\x00\x01", 2)}, std::string("\xFF\x00\x00\x00\x00\xFF", 6), std::string("\xFF\x80", 2));
  r = runConvlive("image " + path("pal.png") + " " + path("out.png") + " --variant cpu --weights 1");
  ASSERT_EQ(r.code, 0) << r.output;
  got = readPng(path("out.png"));
  EXPECT_EQ(got.pixels(), (std::vector<std::uint8_t>{255, 0, 0, 255, 0, 0, 255, 128}));
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
  const DecodedPicture jpeg = readPicture(path("out.jpg"));
  EXPECT_LE(maxDiff(jpeg.image, smooth), 8);
  r = runConvlive("image " + path("smooth.png") + " " + path("low.JPEG") + id + " --quality 20");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_LT(fs::file_size(path("low.JPEG")), fs::file_size(path("out.jpg")));

  // JPEG in, PNG out: the decoded JPEG as it is.
  r = runConvlive("image " + path("out.jpg") + " " + path("back.png") + id);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(maxDiff(readPng(path("back.png")), jpeg.image), 0);

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
  auto r = runConvlive("image " + path("missing.png") + " " + path("out.tiff") + " --variant cpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("'.tiff' is not a picture format: end it in .png, .jpg or .jpeg"), std::string::npos)
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
