// The one filter model: settings as data, set/get by name, validation, and the wording of its
// problems for the command line and the panel; the command line's translation of the old forms.
#include <gtest/gtest.h>

#include "cli.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "words.hpp"

namespace convlive {
namespace {

TEST(FilterSpec, EverySettingRoundTripsThroughText) {
  FilterSpec spec;
  for (const Setting& s : specSettings()) {
    SCOPED_TRACE(s.name);
    EXPECT_FALSE(s.label.empty());
    EXPECT_FALSE(s.help.empty());
    if (s.defaultText().empty()) continue;  // weights: none by default, and empty ones are refused
    // The default reads back as itself.
    EXPECT_TRUE(spec.set(s.name, s.defaultText()).empty()) << spec.set(s.name, s.defaultText()).text();
    EXPECT_EQ(spec, FilterSpec{});
  }
  FilterSpec g;
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{{"mask", "pitch"},
                                                                                    {"radius", "7"},
                                                                                    {"sigma", "2.5"},
                                                                                    {"pitch", "3.25"},
                                                                                    {"direction", "vertical"},
                                                                                    {"weights", "1,2,1"},
                                                                                    {"weights-file", "m.npy"},
                                                                                    {"row-weights", "1,2,1"},
                                                                                    {"col-weights", "1 4 1"},
                                                                                    {"normalize", "true"},
                                                                                    {"border", "wrap"},
                                                                                    {"filter-alpha", "on"},
                                                                                    {"variant", "separable"},
                                                                                    {"tile", "32x8"}}) {
    ASSERT_TRUE(g.set(name, value).empty()) << name << "=" << value << ": " << g.set(name, value).text();
  }
  EXPECT_EQ(g.mask, "pitch");
  EXPECT_EQ(g.radius, 7);
  EXPECT_FLOAT_EQ(g.sigma, 2.5f);
  EXPECT_FLOAT_EQ(g.pitch, 3.25f);
  EXPECT_TRUE(g.vertical);
  EXPECT_TRUE(g.normalize);
  EXPECT_EQ(g.border, Border::Wrap);
  EXPECT_TRUE(g.filterAlpha);
  EXPECT_EQ(g.tile, (Tile{32, 8}));
  EXPECT_EQ(g.get("filter-alpha"), "true");
  EXPECT_EQ(g.get("direction"), "vertical");
  EXPECT_EQ(g.get("weights-file"), "m.npy");
  EXPECT_EQ(g.colWeights, "1 4 1");
  EXPECT_EQ(FilterSpec{}.get("sigma"), "auto");
}

TEST(FilterSpec, BadValuesAreProblemsNamingTheSettingAndLeaveTheSpecAlone) {
  struct Case {
    const char *setting, *value;
    Problem::Code code;
    const char* detail;
  };
  const Case cases[] = {
      {"radius", "99", Problem::Code::OutOfRange, "99 is out of range: use 1..64"},
      {"radius", "0", Problem::Code::OutOfRange, "use 1..64"},
      {"radius", "4x", Problem::Code::Invalid, "not a whole number"},
      {"radius", "", Problem::Code::Invalid, "not a whole number"},
      {"sigma", "0", Problem::Code::OutOfRange, "or auto"},
      {"sigma", "-1", Problem::Code::OutOfRange, "out of range"},
      {"sigma", "nan", Problem::Code::Invalid, "finite"},
      {"pitch", "inf", Problem::Code::Invalid, "finite"},
      {"mask", "blur", Problem::Code::Unknown, "'blur' is not one: use one of box"},
      {"mask", "", Problem::Code::Missing, "is empty"},
      {"border", "reflect", Problem::Code::Unknown, "not a border mode"},
      {"variant", "fastest", Problem::Code::Unknown, "not one"},
      {"weights", " ; ", Problem::Code::Missing, "are empty"},
      {"row-weights", "1,2", Problem::Code::Invalid, "use an odd count"},
      {"col-weights", "1,x,1", Problem::Code::Invalid, "value 2: 'x' is not a number"},
      {"row-weights", " ", Problem::Code::Missing, "are empty"},
      {"tile", "32by8", Problem::Code::Invalid, "not WxH"},
      {"normalize", "maybe", Problem::Code::Invalid, "true or false"},
      {"colour", "red", Problem::Code::Unknown, "no setting 'colour'"},
  };
  for (const Case& c : cases) {
    FilterSpec spec;
    const Problem p = spec.set(c.setting, c.value);
    SCOPED_TRACE(std::string(c.setting) + "=" + c.value + ": " + p.text());
    EXPECT_EQ(p.code, c.code);
    EXPECT_NE(p.detail.find(c.detail), std::string::npos);
    EXPECT_EQ(p.text().find("--"), std::string::npos) << "no flag names in the library's words";
    EXPECT_EQ(spec, FilterSpec{});
  }
}

TEST(FilterSpec, ValidateChecksTheCombination) {
  FilterSpec custom;
  custom.mask = "custom";
  EXPECT_EQ(custom.validate().setting, "weights");
  custom.weights = "1,,2";
  EXPECT_NE(custom.validate().detail.find("empty value between commas"), std::string::npos) << custom.validate().text();
  custom.weights = "1e-50, 1 ,1e-50";  // tiny weights are numbers (they round to 0 in float)
  EXPECT_TRUE(custom.validate().empty()) << custom.validate().text();
  custom.weights = " 1 , 2 , 1 ; 2,4,2;1 2 1";
  EXPECT_TRUE(custom.validate().empty()) << custom.validate().text();
  custom.weights = "1,2,";
  EXPECT_NE(custom.validate().detail.find("ends in a comma"), std::string::npos) << custom.validate().text();
  custom.weights = "1,1e50,1";
  EXPECT_NE(custom.validate().detail.find("finite"), std::string::npos) << custom.validate().text();

  FilterSpec scharr;
  scharr.mask = "scharr";
  scharr.radius = 2;
  EXPECT_EQ(scharr.validate().setting, "radius");

  FilterSpec tiled;
  tiled.tile = {32, 8};
  EXPECT_EQ(tiled.validate().code, Problem::Code::Conflict);  // auto chooses the variant
  EXPECT_EQ(tiled.validate().fixSetting, "variant");
  tiled.variant = "cpu";
  EXPECT_EQ(tiled.validate().code, Problem::Code::Conflict);  // cpu has no tiles
  tiled.variant = "tiled";
  tiled.tile = {7, 7};
  EXPECT_EQ(tiled.validate().code, Problem::Code::Unknown);
  tiled.tile = findVariant("tiled")->tiles.back();
  EXPECT_TRUE(tiled.validate().empty()) << tiled.validate().text();

  FilterParams p;
  FilterSpec g;
  g.radius = 4;
  g.border = Border::Mirror;
  ASSERT_TRUE(g.compile(p).empty());
  EXPECT_EQ(p.filter.mask.radius(), 4);
  EXPECT_EQ(p.border, Border::Mirror);
  EXPECT_THROW(scharr.params(), ProblemError);
}

TEST(FilterSpec, DescribeNamesOnlyTheSettingsTheMaskUses) {
  FilterSpec g;
  g.radius = 4;
  EXPECT_EQ(g.describe(), "gaussian r=4 sigma=auto border=clamp variant=auto");
  FilterSpec pitch;
  pitch.mask = "pitch";
  pitch.pitch = 3.5f;
  EXPECT_EQ(pitch.describe(), "pitch pitch=3.5 direction=horizontal border=clamp variant=auto");
}

TEST(Words, TheCommandLineNamesFlagsAndThePanelNamesWidgets) {
  const Problem p =
      problem(Problem::Code::CannotRun, "radius", "tiled takes radius up to 32 (asked for 40)", "variant", "separable");
  EXPECT_EQ(forCommandLine(p), "--radius: tiled takes radius up to 32 (asked for 40): use --variant separable");
  EXPECT_EQ(forPanel(p), "Radius: tiled takes radius up to 32 (asked for 40): choose separable under Variant");
  EXPECT_EQ(p.text(), "radius: tiled takes radius up to 32 (asked for 40): set variant to separable");
  EXPECT_EQ(forCommandLine(Problem{}), "");
  // A thrown problem keeps its parts.
  try {
    throw ProblemError(p);
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(forPanel(e), forPanel(p));
  }
}

TEST(CommandLine, OldFormsTranslateWithANote) {
  struct Case {
    std::vector<std::string> in, out;
    bool note;
  };
  const Case cases[] = {
      {{"convlive"}, {"convlive", "view"}, false},
      {{"convlive", "--input", "a.webm"}, {"convlive", "view", "--input", "a.webm"}, false},
      {{"convlive", "--headless", "--frames", "3"}, {"convlive", "run", "--frames", "3"}, true},
      {{"convlive", "--list-variants"}, {"convlive", "list", "variants"}, true},
      {{"convlive", "--demo", "d"}, {"convlive", "demo", "d"}, true},
      {{"convlive", "--image", "a.png", "--output", "b.png"},
       {"convlive", "image", "--input", "a.png", "--output", "b.png"},
       true},
      {{"convlive", "--input", "a.mp4", "--output", "b.webm"},
       {"convlive", "export", "--input", "a.mp4", "--output", "b.webm"},
       true},
      {{"convlive", "run", "--frames", "3"}, {"convlive", "run", "--frames", "3"}, false},
  };
  for (const Case& c : cases) {
    const LegacyTranslation t = translateLegacy(c.in);
    EXPECT_EQ(t.args, c.out);
    EXPECT_EQ(!t.note.empty(), c.note) << t.note;
    EXPECT_TRUE(t.error.empty()) << t.error;
  }
  EXPECT_FALSE(translateLegacy({"convlive", "--headless", "--image", "a.png"}).error.empty());
}

}  // namespace
}  // namespace convlive
