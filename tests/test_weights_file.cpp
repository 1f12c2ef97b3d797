// Masks from files and from factors: the text and NumPy parsers (good files, and every bad one with
// its message), the shape rules, row/column factors against the full mask, and the spec's settings.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>

#include "convlive/mask.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "convlive/weights_file.hpp"
#include "words.hpp"

using namespace convlive;
namespace fs = std::filesystem;

namespace {

class WeightsFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("convlive-weights-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  fs::path dir_;
};

// A .npy file made here: version 1 or 2 header, any descr, shape and data bytes.
std::string npyBytes(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false,
                     int version = 1) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  const std::size_t pre = version == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(version);
  out += '\0';
  const std::size_t n = header.size();
  out += char(n & 0xff);
  out += char((n >> 8) & 0xff);
  if (version > 1) out += std::string("\0\0", 2);
  return out + header + data;
}

std::string le32(float v) {
  const auto u = std::bit_cast<std::uint32_t>(v);
  std::string s;
  for (int k = 0; k < 4; ++k) s += char((u >> (8 * k)) & 0xff);
  return s;
}
std::string le64(double v) {
  const auto u = std::bit_cast<std::uint64_t>(v);
  std::string s;
  for (int k = 0; k < 8; ++k) s += char((u >> (8 * k)) & 0xff);
  return s;
}

WeightGrid parsedText(const std::string& text) {
  WeightGrid g;
  const Problem p = parseWeightsText(text, "m.txt", g);
  EXPECT_TRUE(p.empty()) << p.text();
  return g;
}

std::string textProblem(const std::string& text) {
  WeightGrid g;
  return parseWeightsText(text, "m.txt", g).detail;
}

std::string npyProblem(const std::string& bytes) {
  WeightGrid g;
  return parseNpy(bytes, "m.npy", g).detail;
}

bool pythonNumpy() { return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0; }

}  // namespace

TEST(WeightsText, RowsOfNumbersCommasSpacesCommentsAndBlankLines) {
  const WeightGrid g = parsedText(
      "\xEF\xBB\xBF# a 3x3 blur\n"
      "1, 2, 1   # top\n"
      "\n"
      "2\t4 2\r\n"
      "  1,2 ,1\n"
      "# end\n");
  EXPECT_EQ(g.rows, 3);
  EXPECT_EQ(g.cols, 3);
  EXPECT_EQ(g.values, (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
  const WeightGrid e = parsedText("-1.5e-1 +2 .5");
  EXPECT_EQ(e.rows, 1);
  EXPECT_EQ(e.values, (std::vector<float>{-0.15f, 2.f, 0.5f}));
  EXPECT_EQ(parsedText("1e-50").values, (std::vector<float>{0.f}));  // rounds to 0, as floats do
  // f32's largest value by its shortest text, which as a double lies a little above it
  EXPECT_EQ(parsedText("3.4028235e38,-3.4028235e38").values,
            (std::vector<float>{std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()}));
}

TEST(WeightsText, EachBadFileSaysWhereAndWhat) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "'m.txt' holds no numbers: write one row of the mask a line"},
      {"# only a comment\n\n", "holds no numbers"},
      {"1,2,1\n2,4\n1,2,1\n", "'m.txt' is ragged: row 1 (line 1) has 3 values, row 2 (line 2) has 2"},
      {"# c\n1 2 1\n\n1 x 1\n", "'m.txt' row 2, column 2 (line 4): 'x' is not a number"},
      {"1,2,1\n1,nan,1\n", "row 2, column 2 (line 2): 'nan' is not a finite number"},
      {"1,2,inf\n", "row 1, column 3 (line 1): 'inf' is not a finite number"},
      {"1,1e39,1\n", "'1e39' is not a finite number (floats hold up to about 3.4e38)"},
      {"1,3.4028236e38,1\n", "'3.4028236e38' is not a finite number"},  // past the halfway point to Inf
      {"1,,1\n", "row 1, column 2 (line 1): nothing between commas"},
      {",1,1\n", "row 1, column 1 (line 1): nothing between commas"},
      {"1,2,\n", "row 1, column 3 (line 1): the row ends in a comma"},
      {std::string("1,2\0,1\n", 7), "is not text (line 1 holds a zero byte)"},
  };
  for (const auto& [text, message] : cases) {
    const std::string got = textProblem(text);
    EXPECT_NE(got.find(message), std::string::npos) << "text: " << text << "\ngot: " << got;
    EXPECT_EQ(got.find("--"), std::string::npos) << got;
  }
  std::string wide;
  for (int i = 0; i < 131; ++i) wide += "1 ";
  EXPECT_NE(textProblem(wide).find("more than 129 columns"), std::string::npos) << textProblem(wide);
  std::string tall;
  for (int i = 0; i < 131; ++i) tall += "1\n";
  EXPECT_NE(textProblem(tall).find("more than 129 rows"), std::string::npos) << textProblem(tall);
}

TEST(WeightsNpy, HandMadeFilesInEveryAcceptedForm) {
  WeightGrid g;
  std::string f4;
  for (float v : {1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f}) f4 += le32(v);
  ASSERT_TRUE(parseNpy(npyBytes("<f4", "(3, 3)", f4), "m.npy", g).empty());
  EXPECT_EQ(g.values, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // Fortran order: the same bytes are the transpose.
  ASSERT_TRUE(parseNpy(npyBytes("<f4", "(3, 3)", f4, true), "m.npy", g).empty());
  EXPECT_EQ(g.values, (std::vector<float>{1, 4, 7, 2, 5, 8, 3, 6, 9}));
  std::string f8;
  for (double v : {0.25, -0.5, 0.25}) f8 += le64(v);
  ASSERT_TRUE(parseNpy(npyBytes("<f8", "(1, 3)", f8, false, 2), "m.npy", g).empty());  // version 2 header
  EXPECT_EQ(g.rows, 1);
  EXPECT_EQ(g.cols, 3);
  EXPECT_EQ(g.values, (std::vector<float>{0.25f, -0.5f, 0.25f}));
  ASSERT_TRUE(parseNpy(npyBytes("<f8", "(3, 1)", f8, true), "m.npy", g).empty());
  EXPECT_EQ(g.rows, 3);
  EXPECT_EQ(g.cols, 1);
}

TEST(WeightsNpy, EachBadFileSaysWhatAndWhatToDo) {
  std::string f8x9;
  for (int i = 0; i < 9; ++i) f8x9 += le64(1.0);
  std::string withNan = f8x9;
  withNan.replace(5 * 8, 8, le64(std::nan("")));
  std::string withInf = f8x9;
  withInf.replace(1 * 8, 8, le64(HUGE_VAL));
  std::string withHuge = f8x9;
  withHuge.replace(0, 8, le64(1e300));
  const std::pair<std::string, std::string> cases[] = {
      {"", "'m.npy' is empty"},
      {"1,2,1\n", "'m.npy' is not a NumPy .npy file (it does not start with \\x93NUMPY)"},
      {npyBytes("<i8", "(3, 3)", f8x9), "'m.npy' holds int64 data (dtype '<i8'): save float32 or float64"},
      {npyBytes("<f2", "(3, 3)", f8x9.substr(0, 18)), "holds float16 data (dtype '<f2')"},
      {npyBytes("|u1", "(3, 3)", f8x9.substr(0, 9)), "holds uint8 data"},
      {npyBytes(">f8", "(3, 3)", f8x9), "holds big-endian float64 data (dtype '>f8'): save it little-endian"},
      {npyBytes("<f8", "(9,)", f8x9), "is 1-dimensional (shape (9,)): save a 2D array: array.reshape(1, -1)"},
      {npyBytes("<f8", "(1, 3, 3)", f8x9), "is 3-dimensional (shape (1, 3, 3))"},
      {npyBytes("<f8", "()", f8x9.substr(0, 8)), "is 0-dimensional"},
      {npyBytes("<f8", "(0, 3)", ""), "holds no numbers (shape (0, 3))"},
      {npyBytes("<f8", "(3, 3)", f8x9.substr(0, 40)),
       "is truncated: its header says 3x3 float64 data (72 bytes), the file holds 40"},
      {npyBytes("<f8", "(3, 3)", f8x9 + "xx"), "has 2 bytes after the 3x3 array"},
      {npyBytes("<f8", "(3, 3)", withNan), "holds NaN at row 2, column 3"},
      {npyBytes("<f8", "(3, 3)", withInf), "holds infinity at row 1, column 2"},
      {npyBytes("<f8", "(3, 3)", withHuge), "at row 1, column 1: masks take finite numbers (floats hold up to"},
      {npyBytes("<f8", "(131, 131)", ""), "'m.npy' is 131x131: the largest mask is 129x129 (radius 64)"},
      {npyBytes("<f8", "(3, 3)", f8x9).substr(0, 30), "is truncated (its header is cut short)"},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string got = npyProblem(bytes);
    EXPECT_NE(got.find(message), std::string::npos) << "want: " << message << "\ngot: " << got;
    EXPECT_EQ(got.find("--"), std::string::npos) << got;
  }
  std::string structured = npyBytes("<f8", "(3, 3)", f8x9);
  structured.replace(structured.find("'<f8'"), 5, "[('a', '<f8')]");
  EXPECT_NE(npyProblem(structured).find("structured array"), std::string::npos) << npyProblem(structured);
}

TEST_F(WeightsFiles, FilesWrittenByNumpyLoad) {
  if (!pythonNumpy()) GTEST_SKIP() << "no numpy for /usr/bin/python3";
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "a = np.arange(25, dtype=np.float64).reshape(5, 5) / 7 - 1\n"
      "np.save(d + '/f64.npy', a)\n"
      "np.save(d + '/f32.npy', a.astype(np.float32))\n"
      "np.save(d + '/fortran.npy', np.asfortranarray(a))\n"
      "np.save(d + '/row.npy', np.array([[1.0, 2.0, 1.0]]))\n"
      "np.save(d + '/int.npy', np.ones((3, 3), dtype=np.int32))\n"
      "np.save(d + '/big.npy', a.astype('>f8'))\n"
      "np.savetxt(d + '/saved.txt', a)\n"
      "np.savetxt(d + '/saved.csv', a, delimiter=',')\n";
  std::ofstream(path("make.py")) << script;
  ASSERT_EQ(std::system(("/usr/bin/python3 " + path("make.py") + " " + dir_.string()).c_str()), 0);
  std::vector<float> want(25);
  for (int i = 0; i < 25; ++i) want[std::size_t(i)] = static_cast<float>(double(i) / 7 - 1);
  for (const char* name : {"f64.npy", "f32.npy", "fortran.npy", "saved.txt", "saved.csv"}) {
    SCOPED_TRACE(name);
    WeightGrid g;
    const Problem p = readWeightsFile(path(name), g);
    ASSERT_TRUE(p.empty()) << p.text();
    EXPECT_EQ(g.rows, 5);
    EXPECT_EQ(g.cols, 5);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(g.values[i], want[i]) << i;
  }
  WeightGrid g;
  ASSERT_TRUE(readWeightsFile(path("row.npy"), g).empty());
  EXPECT_EQ(maskFromGrid(g, false).weights(), parseCustomMask("1,2,1", false).weights());
  EXPECT_NE(readWeightsFile(path("int.npy"), g).detail.find("holds int32 data"), std::string::npos);
  EXPECT_NE(readWeightsFile(path("big.npy"), g).detail.find("big-endian"), std::string::npos);
}

TEST_F(WeightsFiles, FileLevelProblems) {
  WeightGrid g;
  fs::create_directories(path("folder.txt"));
  write("mask.png", "1,2,1");
  const std::pair<std::string, std::string> cases[] = {
      {path("missing.txt"), "missing.txt' does not exist: check the path"},
      {path("folder.txt"), "folder.txt' is a folder: name a weights file in it"},
      {path("mask.png"), "is not a weights file convlive reads (.png): use text (.txt, .csv"},
      {write("empty.csv", ""), "empty.csv' holds no numbers"},
      {write("empty.npy", ""), "empty.npy' is empty"},
      {write("text.npy", "1,2,1\n"), "is not a NumPy .npy file"},
  };
  for (const auto& [file, message] : cases) {
    const Problem p = readWeightsFile(file, g);
    EXPECT_NE(p.detail.find(message), std::string::npos) << p.detail;
  }
  std::ofstream(path("huge.txt")) << std::string(std::size_t(kMaxWeightsFileBytes) + 1, ' ');
  EXPECT_NE(readWeightsFile(path("huge.txt"), g).detail.find("far larger than any mask"), std::string::npos);
  // Good files of each text kind, and none.
  for (const char* name : {"m.txt", "m.csv", "m.tsv", "m.dat", "m"}) {
    ASSERT_TRUE(readWeightsFile(write(name, "1 2 1\n2 4 2\n1 2 1\n"), g).empty()) << name;
    EXPECT_EQ(g.rows, 3);
  }
}

// A named pipe would block the open and /dev/zero would be read for ever: both are refused at once.
TEST_F(WeightsFiles, PipesAndDevicesAreRefusedWithoutReading) {
  WeightGrid g;
  ASSERT_EQ(::mkfifo(path("pipe.txt").c_str(), 0600), 0);
  EXPECT_EQ(
      readWeightsFile(path("pipe.txt"), g).detail,
      "'" + path("pipe.txt") + "' is not a regular file (a pipe, a socket or a device): save the weights to a file");
  EXPECT_NE(readWeightsFile("/dev/zero", g).detail.find("'/dev/zero' is not a regular file"), std::string::npos);
  EXPECT_EQ(g.rows, 0);
}

// The .npy's data is exactly rows x cols x item size, and the sizes are checked before anything
// is allocated: a header length or a shape far beyond the file is refused as truncated.
TEST(WeightsNpy, SizesBeyondTheFileAreRefusedBeforeAllocating) {
  WeightGrid g;
  const std::string hugeHeader("\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr'", 20);
  EXPECT_NE(parseNpy(hugeHeader, "h.npy", g).detail.find("'h.npy' is truncated (its header is cut short)"),
            std::string::npos);
  EXPECT_NE(parseNpy(npyBytes("<f8", "(9223372036854775807, 9223372036854775807)", ""), "s.npy", g)
                .detail.find("is 9223372036854775807x9223372036854775807: the largest mask is 129x129"),
            std::string::npos);
  // A dtype whose size does not fit an int (found by fuzz_weights_npy: its size times 8 overflowed).
  EXPECT_NE(
      parseNpy(npyBytes("<f1535817954", "(1, 3)", ""), "d.npy", g).detail.find("holds data of type '<f1535817954'"),
      std::string::npos);
  const Problem extra = parseNpy(npyBytes("<f4", "(1, 3)", std::string(13, '\0')), "x.npy", g);
  EXPECT_NE(extra.detail.find("'x.npy' has 1 bytes after the 1x3 array its header describes"), std::string::npos)
      << extra.detail;
  EXPECT_EQ(g.rows, 0);
}

TEST(WeightsShape, OddSquaresRowsAndColumnsUpTo129) {
  EXPECT_EQ(gridShapeProblem(3, 3, "w"), "");
  EXPECT_EQ(gridShapeProblem(1, 5, "w"), "");
  EXPECT_EQ(gridShapeProblem(129, 1, "w"), "");
  EXPECT_EQ(gridShapeProblem(129, 129, "w"), "");
  EXPECT_NE(gridShapeProblem(4, 4, "w").find("w are 4x4: use an odd square"), std::string::npos);
  EXPECT_NE(gridShapeProblem(1, 4, "w").find("one row or one column of odd length"), std::string::npos);
  EXPECT_NE(gridShapeProblem(3, 5, "w").find("w are 3x5: use an odd square"), std::string::npos);
  EXPECT_NE(gridShapeProblem(131, 131, "w").find("the largest mask is 129x129 (radius 64)"), std::string::npos);
  EXPECT_NE(gridShapeProblem(1, 131, "w").find("largest"), std::string::npos);
}

TEST(SeparableMask, FactorsGiveTheFullMask) {
  // The outer product typed as a grid and the factors give the same weights.
  const Mask full = parseCustomMask("1,2,1;2,4,2;1,2,1", false);
  const Mask factors = separableMask({1, 2, 1}, {1, 2, 1}, false);
  EXPECT_EQ(factors.weights(), full.weights());
  EXPECT_TRUE(factors.separable());
  // Different factors, unequal lengths: the shorter is padded with zeros at both ends.
  const Mask mixed = separableMask({1, 3, 1}, {1, 4, 6, 4, 1}, false);
  ASSERT_EQ(mixed.radius(), 2);
  EXPECT_EQ(mixed.weights(), parseCustomMask("0,0,0,0,0;1,4,6,4,1;3,12,18,12,3;1,4,6,4,1;0,0,0,0,0", false).weights());
  // One factor alone is a 1D mask, as one row / one column of weights is.
  EXPECT_EQ(separableMask({}, {1, 2, 1}, false).weights(), parseCustomMask("1,2,1", false).weights());
  EXPECT_EQ(separableMask({1, 2, 1}, {}, false).weights(), parseCustomMask("1;2;1", false).weights());
  // normalize: each factor by its sum, so the mask sums to 1 as the normalised grid does.
  const Mask n = separableMask({1, 2, 1}, {1, 4, 6, 4, 1}, true);
  EXPECT_NEAR(n.sum(), 1.f, 1e-6f);
  const Mask g = parseCustomMask("0,0,0,0,0;1,4,6,4,1;2,8,12,8,2;1,4,6,4,1;0,0,0,0,0", true);
  for (std::size_t i = 0; i < g.weights().size(); ++i) EXPECT_FLOAT_EQ(n.weights()[i], g.weights()[i]) << i;
  // r = 64 from 129 numbers each.
  std::vector<float> big(129, 1.f);
  const Mask r64 = separableMask(big, big, true);
  EXPECT_EQ(r64.radius(), 64);
  EXPECT_TRUE(r64.separable());
  EXPECT_NEAR(std::accumulate(r64.weights().begin(), r64.weights().end(), 0.0), 1.0, 1e-5);  // Mask::sum adds floats
  EXPECT_THROW(separableMask(std::vector<float>(131, 1.f), {1}, false), std::invalid_argument);
  EXPECT_THROW(separableMask({1, 1}, {1}, false), std::invalid_argument);
  EXPECT_THROW(separableMask({1, -1, 0}, {1}, true), std::invalid_argument);  // sums to 0
}

TEST(WeightVector, ParsesOddCountsAndSaysWhatIsWrong) {
  std::vector<float> v;
  ASSERT_TRUE(parseWeightVector("1, 4 6,4,1", v).empty());
  EXPECT_EQ(v, (std::vector<float>{1, 4, 6, 4, 1}));
  EXPECT_EQ(parseWeightVector("1,2", v).detail,
            "have 2 values: use an odd count (3, 5, ...) so that the mask has a "
            "centre (pad with a 0)");
  EXPECT_EQ(parseWeightVector("1,x,1", v).detail, "value 2: 'x' is not a number");
  EXPECT_EQ(parseWeightVector("1,,1", v).detail, "value 2: nothing between commas (a missing value)");
  EXPECT_EQ(parseWeightVector(" ", v).code, Problem::Code::Missing);
  std::string longest;
  for (int i = 0; i < 131; ++i) longest += "1,";
  longest += "1";  // 132 values: even and too long; the even count is said first
  EXPECT_NE(parseWeightVector(longest + ",1", v).detail.find("the longest is 129"), std::string::npos);
}

TEST_F(WeightsFiles, SpecSettingsReadTheFileAndNameTheSettingAtFault) {
  const std::string file = write("blur.txt", "1 2 1\n2 4 2\n1 2 1\n");
  FilterSpec s;
  ASSERT_TRUE(s.set("mask", "custom").empty());
  ASSERT_TRUE(s.set("weights-file", file).empty());
  ASSERT_TRUE(s.set("normalize", "true").empty());
  EXPECT_EQ(s.get("weights-file"), file);
  FilterParams p;
  ASSERT_TRUE(s.compile(p).empty()) << s.compile(p).text();
  EXPECT_EQ(p.filter.mask.weights(), parseCustomMask("1,2,1;2,4,2;1,2,1", true).weights());
  EXPECT_EQ(s.describe(), "custom weights-file=" + file + " normalize=true border=clamp variant=auto");

  // The file's problems name the setting; both front ends word them.
  FilterSpec bad = s;
  bad.weightsFile = write("ragged.csv", "1,2,1\n1,2\n");
  const Problem why = bad.validate();
  EXPECT_EQ(why.setting, "weights-file");
  EXPECT_EQ(why.text().find("--"), std::string::npos) << why.text();
  EXPECT_EQ(forCommandLine(why).rfind("--weights-file: '" + bad.weightsFile + "' is ragged", 0), 0u)
      << forCommandLine(why);
  EXPECT_EQ(forPanel(why).rfind("Weights file: '", 0), 0u) << forPanel(why);
  bad.weightsFile = write("even.txt", "1 1\n1 1\n");
  EXPECT_NE(bad.validate().detail.find("the weights in '" + bad.weightsFile + "' are 2x2: use an odd square"),
            std::string::npos)
      << bad.validate().text();
  EXPECT_EQ(bad.validate().setting, "weights-file");
  bad.weightsFile = path("gone.npy");
  EXPECT_NE(bad.validate().detail.find("does not exist"), std::string::npos);

  // Weights given two ways: a conflict, not a silent choice.
  FilterSpec both = s;
  both.weights = "1";
  EXPECT_EQ(both.validate().code, Problem::Code::Conflict);
  EXPECT_EQ(both.validate().setting, "weights-file");
  EXPECT_NE(both.validate().detail.find("given 2 ways (a grid of weights and a weights file): keep one"),
            std::string::npos)
      << both.validate().text();
  both.rowWeights = "1,2,1";
  EXPECT_NE(both.validate().detail.find("3 ways"), std::string::npos) << both.validate().text();

  // Unset: "" is the default and reads back as itself.
  ASSERT_TRUE(s.set("weights-file", "").empty());
  EXPECT_EQ(s.validate().setting, "weights");  // custom with no weights at all
  EXPECT_NE(s.validate().detail.find("needs weights"), std::string::npos);
}

TEST(SpecFactors, RowAndColumnWeightsAreTheEquivalentFullMask) {
  FilterSpec f;
  f.mask = "custom";
  ASSERT_TRUE(f.set("row-weights", "1,2,1").empty());
  ASSERT_TRUE(f.set("col-weights", "1 4 6 4 1").empty());
  FilterSpec g;
  g.mask = "custom";
  g.weights = "0,0,0;1,2,1;4,8,4;6,12,6;4,8,4;1,2,1;0,0,0";  // not square: refused as a grid
  EXPECT_EQ(g.validate().setting, "weights");
  g.weights = "0,1,2,1,0;0,4,8,4,0;0,6,12,6,0;0,4,8,4,0;0,1,2,1,0";
  EXPECT_EQ(f.params().filter.mask.weights(), g.params().filter.mask.weights());
  EXPECT_TRUE(f.params().filter.mask.separable());
  EXPECT_EQ(f.describe(), "custom row-weights=1,2,1 col-weights=1 4 6 4 1 border=clamp variant=auto");

  // Bad factors are refused when set, naming the setting; the spec stays as it was.
  FilterSpec keep = f;
  Problem p = f.set("row-weights", "1,2");
  EXPECT_EQ(p.setting, "row-weights");
  EXPECT_EQ(forCommandLine(p),
            "--row-weights: have 2 values: use an odd count (3, 5, ...) so that the mask has a "
            "centre (pad with a 0)");
  p = f.set("col-weights", "1,nan,1");
  EXPECT_EQ(p.setting, "col-weights");
  EXPECT_EQ(forPanel(p), "Column weights: value 2: 'nan' is not a finite number (floats hold up to about 3.4e38)");
  EXPECT_EQ(f, keep);
  // A spec built in code is checked when compiled.
  FilterSpec code;
  code.mask = "custom";
  code.colWeights = "1,2,3,4";
  EXPECT_EQ(code.validate().setting, "col-weights");
  code.colWeights = "1,-1,0";
  code.normalize = true;
  EXPECT_EQ(code.validate().setting, "col-weights");
  EXPECT_NE(code.validate().detail.find("sums to 0"), std::string::npos) << code.validate().text();
}
