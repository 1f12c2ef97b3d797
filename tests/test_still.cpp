// The still-image command line: its output, errors and exit codes (runs the real program).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "image_io.hpp"
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

int maxDiff(const HostImage& a, const HostImage& b) {
  int d = 0;
  for (size_t i = 0; i < a.pixels().size(); ++i) d = std::max(d, std::abs(int(a.pixels()[i]) - int(b.pixels()[i])));
  return d;
}

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
  const auto r = runConvlive("--list-variants");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* v : {"naive", "constant", "tiled", "tiled-coop", "separable", "fused", "stream", "tensor2d",
                        "tensorsep", "texture", "cpu"})
    EXPECT_NE(r.output.find(v), std::string::npos) << v;
  EXPECT_NE(r.output.find("32x8"), std::string::npos);
}

TEST_F(StillCommand, TuneFillsTheCacheOrSaysWhyItCannot) {
  const std::string cache = path("tune.json");
  const auto r = convlive::testing::runConvliveWith("--tune", "env CONVLIVE_TUNE_CACHE=" + cache);
  if (!deviceInfo().available) {
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("without a GPU, auto is the cpu variant"), std::string::npos) << r.output;
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
      {"image --input " + path("text.png") + out + cpu, "not a PNG file"},
      {"image --input " + path("trunc.png") + out + cpu, "not a readable PNG"},
      {"image" + in + " --output " + path("nodir/out.png") + cpu, "does not exist"},
      {"image" + in + " --output " + path("out.jpg") + cpu, "must end in .png"},
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
