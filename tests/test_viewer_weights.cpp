// The viewer with custom weights from a file and from row/column factors: the panel shows them
// (its widgets are drawn each pass) and what is drawn is the reference filter of those weights; a
// second load of the file (the panel's Load button: FilterController::apply) re-reads it. Label gl.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "viewer_fixture.hpp"

namespace convlive {
namespace {

using namespace convlive::testing;
namespace fs = std::filesystem;

TEST(ViewerWeights, AFileAndFactorsDriveTheCustomMaskAndLoadRereadsTheFile) {
  std::string skip;
  auto context = makeContext(ContextKind::Egl, skip);
  ASSERT_TRUE(context) << skip;
  const fs::path dir =
      fs::temp_directory_path() / ("convlive-viewer-weights-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  const std::string file = (dir / "mask.csv").string();
  std::ofstream(file) << "1,2,1\n2,4,2\n1,2,1\n";

  FilterSpec spec;
  spec.mask = "custom";
  spec.weightsFile = file;
  spec.normalize = true;
  spec.variant = "cpu";
  auto v = makeViewer(*context, spec);
  showApplied(*v);
  EXPECT_EQ(v->shownParams().filter.mask.weights(), parseCustomMask("1,2,1;2,4,2;1,2,1", true).weights());

  // The file edited, then loaded again: the new weights run.
  std::ofstream(file) << "0 0 0 0 0\n0 0 0 0 0\n1 1 1 1 1\n0 0 0 0 0\n0 0 0 0 0\n";
  EXPECT_EQ(v->filter().apply(v->filter().applied()), "");
  showApplied(*v);
  EXPECT_EQ(v->shownParams().filter.mask.radius(), 2);

  // A bad file is refused in the panel's words; the running filter stays.
  std::ofstream(dir / "bad.txt") << "1 2\n3\n";
  EXPECT_EQ(v->filter().set("weights-file", (dir / "bad.txt").string()).rfind("Weights file: '", 0), 0u)
      << v->filter().message();
  EXPECT_EQ(v->filter().applied().weightsFile, file);

  // Factors instead of the file (the panel clears the file when factors are typed).
  FilterSpec factors = v->filter().applied();
  factors.weightsFile.clear();
  factors.rowWeights = "1,2,1";
  factors.colWeights = "1,2,1";
  EXPECT_EQ(v->filter().apply(factors), "");
  showApplied(*v);
  EXPECT_TRUE(v->shownParams().filter.mask.separable());
  for (int i = 0; i < 3; ++i) v->frame();  // the panel draws the factors' widgets
  fs::remove_all(dir);
}

}  // namespace
}  // namespace convlive
