// The block-grid overlay's geometry and caption (label cpu): grid lines at known scales, offsets
// and zooms, thinning, the hovered tile and its apron (cut to the frame), where idle threads are
// (decided from each variant's own launch and work model), two-pass launches, and a variant with
// no grid. Plain math: no GL, no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "filter_cases.hpp"
#include "viewer/overlay.hpp"

namespace convlive {
namespace {

using testcases::paramsFor;

const Variant& variant(const char* name) {
  const Variant* v = findVariant(name);
  if (!v) throw std::runtime_error(std::string("no variant ") + name);
  return *v;
}

LaunchDescription launchOf(const char* name, const FilterParams& p, int w, int h) {
  return variant(name).describeLaunch(p, w, h);
}

void expectRect(const Rect& r, double x, double y, double w, double h) {
  EXPECT_DOUBLE_EQ(r.x, x);
  EXPECT_DOUBLE_EQ(r.y, y);
  EXPECT_DOUBLE_EQ(r.w, w);
  EXPECT_DOUBLE_EQ(r.h, h);
}

std::string joined(const std::vector<CaptionLine>& lines) {
  std::string all;
  for (const CaptionLine& l : lines) all += l.text + "\n";
  return all;
}

TEST(OverlayGrid, LinesAtEachTileEdgeOneToOne) {
  const GridLines g = gridLines(12, 64, 100, 1, 100, 164);
  EXPECT_EQ(g.every, 1);
  EXPECT_EQ(g.at, (std::vector<double>{100, 112, 124, 136, 148, 160}));
}

TEST(OverlayGrid, ZoomedAndPannedOnlyTheVisibleLines) {
  // Twice the size, the frame's left edge 30 px left of the clip: edges at -30 + 24 k, k < 6.
  const GridLines g = gridLines(12, 64, -30, 2, 0, 200);
  EXPECT_EQ(g.every, 1);
  EXPECT_EQ(g.at, (std::vector<double>{18, 42, 66, 90}));
  // The clip ends the lines too.
  EXPECT_EQ(gridLines(12, 64, -30, 2, 0, 50).at, (std::vector<double>{18, 42}));
  // A fractional scale: the edges where they fall.
  const GridLines f = gridLines(16, 100, 5, 0.75, 0, 1000);
  ASSERT_EQ(f.at.size(), 7u);
  EXPECT_DOUBLE_EQ(f.at[3], 5 + 3 * 12.0);
}

TEST(OverlayGrid, SmallTilesAreThinnedToEveryNthEdge) {
  // 4-pixel tiles at half size: 2 px apart on screen; every 4th edge keeps them 8 px apart.
  const GridLines g = gridLines(4, 720, 0, 0.5, 0, 360);
  EXPECT_EQ(g.every, 4);
  ASSERT_GE(g.at.size(), 2u);
  for (std::size_t i = 1; i < g.at.size(); ++i) EXPECT_DOUBLE_EQ(g.at[i] - g.at[i - 1], 8);
  EXPECT_EQ(g.at.size(), 45u);  // edges 0, 16, ..., 704 of the frame's 180 tiles
  // Panned: the kept lines are still the multiples of 4 (the same ones as the frame moves).
  const GridLines p = gridLines(4, 720, -3, 0.5, 0, 360);
  EXPECT_DOUBLE_EQ(p.at.front(), -3 + 16 * 0.5);  // edge 16, the 4th tile's
  // Tiles at least kMinGridSpacing apart are never thinned.
  EXPECT_EQ(gridLines(6, 100, 0, 1, 0, 100).every, 1);
  EXPECT_EQ(gridLines(5, 100, 0, 1, 0, 100).every, 2);
}

TEST(OverlayGrid, RingPiecesAroundAnInnerRect) {
  const auto four = ringPieces({0, 0, 16, 16}, {2, 2, 12, 12});
  ASSERT_EQ(four.size(), 4u);
  double area = 0;
  for (const Rect& r : four) area += r.w * r.h;
  EXPECT_DOUBLE_EQ(area, 16 * 16 - 12 * 12);
  // Only left and right (a row pass's apron).
  const auto two = ringPieces({-64, 0, 256, 4}, {0, 0, 128, 4});
  ASSERT_EQ(two.size(), 2u);
  expectRect(two[0], -64, 0, 64, 4);
  expectRect(two[1], 128, 0, 64, 4);
  EXPECT_TRUE(ringPieces({0, 0, 8, 8}, {0, 0, 8, 8}).empty());
}

// tiled, 16x16 blocks at r = 2: 12x12 output tiles, each reading a 16x16 input tile from (-2, -2).
struct TiledAtOneToOne : ::testing::Test {
  LaunchDescription launch = launchOf("tiled", paramsFor("gaussian", 2, {16, 16}), 64, 48);
  double idle = variant("tiled").workModel(paramsFor("gaussian", 2, {16, 16}), 64, 48).idleThreads;
  OverlayView view{64, 48, {10, 20, 64, 48}, {0, 0, 200, 100}, std::nullopt};
};

TEST_F(TiledAtOneToOne, TheGridIsTheLaunchsOutputTiles) {
  const OverlayGeometry g = overlayGeometry(launch, idle, view);
  expectRect(g.clip, 10, 20, 64, 48);
  ASSERT_EQ(g.passes.size(), 1u);
  const PassGrid& p = g.passes[0];
  EXPECT_EQ(p.columns, 6);
  EXPECT_EQ(p.rows, 4);
  EXPECT_EQ(p.columns, launch.passes[0].grid.x);
  EXPECT_EQ(p.rows, launch.passes[0].grid.y);
  EXPECT_EQ(p.vertical.at, (std::vector<double>{10, 22, 34, 46, 58, 70}));
  EXPECT_EQ(p.horizontal.at, (std::vector<double>{20, 32, 44, 56}));
  EXPECT_FALSE(p.hovered);
  EXPECT_EQ(p.idle, IdleRegion::Apron);
}

TEST_F(TiledAtOneToOne, TheHoveredTileAndItsApron) {
  view.cursor = Point{10 + 30.5, 20 + 5.5};  // frame pixel (30, 5): tile (2, 0)
  const OverlayGeometry g = overlayGeometry(launch, idle, view);
  ASSERT_TRUE(g.passes.at(0).hovered);
  const HoveredTile& t = *g.passes[0].hovered;
  EXPECT_EQ(t.column, 2);
  EXPECT_EQ(t.row, 0);
  expectRect(t.frameOutput, 24, 0, 12, 12);
  expectRect(t.output, 34, 20, 12, 12);
  // The input tile starts 2 px above the frame: cut to it.
  expectRect(t.input, 32, 20, 16, 14);
  ASSERT_EQ(t.apron.size(), 3u);  // below, left, right (nothing above the frame)
  double area = 0;
  for (const Rect& r : t.apron) area += r.w * r.h;
  EXPECT_DOUBLE_EQ(area, 16 * 14 - 12 * 12);
  // tiled's block is the input tile: its idle threads are the apron's.
  ASSERT_EQ(t.idle.size(), t.apron.size());
  for (std::size_t i = 0; i < t.idle.size(); ++i)
    expectRect(t.idle[i], t.apron[i].x, t.apron[i].y, t.apron[i].w, t.apron[i].h);
}

TEST_F(TiledAtOneToOne, AnEdgeTileIsCutToTheFrame) {
  view.cursor = Point{10 + 63, 20 + 47};  // the last pixel: tile (5, 3), x 60..71 of a 64-wide frame
  const HoveredTile t = *overlayGeometry(launch, idle, view).passes.at(0).hovered;
  EXPECT_EQ(t.column, 5);
  EXPECT_EQ(t.row, 3);
  expectRect(t.frameOutput, 60, 36, 4, 12);
  expectRect(t.input, 10 + 58, 20 + 34, 6, 14);
  ASSERT_EQ(t.apron.size(), 2u);  // above and left: right and below lie outside the frame
}

TEST_F(TiledAtOneToOne, FollowsZoomAndPan) {
  // Zoomed 4x, the frame's corner at (-100, -60): a tile is 48 px on screen.
  view.frame = {-100, -60, 256, 192};
  view.cursor = Point{50, 50};  // frame (37.5, 27.5): tile (3, 2)
  const OverlayGeometry g = overlayGeometry(launch, idle, view);
  expectRect(g.clip, 0, 0, 156, 100);
  const PassGrid& p = g.passes.at(0);
  EXPECT_EQ(p.vertical.at, (std::vector<double>{44, 92, 140}));
  EXPECT_EQ(p.horizontal.at, (std::vector<double>{36, 84}));
  ASSERT_TRUE(p.hovered);
  EXPECT_EQ(p.hovered->column, 3);
  EXPECT_EQ(p.hovered->row, 2);
  expectRect(p.hovered->output, -100 + 36 * 4, -60 + 24 * 4, 48, 48);
  expectRect(p.hovered->input, -100 + 34 * 4, -60 + 22 * 4, 64, 64);
  // The cursor outside the frame (or the video area) hovers nothing.
  view.cursor = Point{170, 50};
  EXPECT_FALSE(overlayGeometry(launch, idle, view).passes.at(0).hovered);
}

TEST(OverlayIdle, DecidedFromEachVariantsLaunchAndWorkModel) {
  auto regionOf = [](const char* name, const FilterParams& p) {
    const LaunchDescription l = launchOf(name, p, 1280, 720);
    return idleRegion(l.passes.at(0), variant(name).workModel(p, 1280, 720).idleThreads);
  };
  const FilterParams g2 = paramsFor("gaussian", 2);
  // Block = input tile: the apron's threads idle (also when coarsened: r = 9 on 32x8).
  EXPECT_EQ(regionOf("tiled", g2), IdleRegion::Apron);
  EXPECT_EQ(regionOf("tiled", paramsFor("gaussian", 9, {32, 8})), IdleRegion::Apron);
  // Block = output tile: all threads compute, although the block reads an apron too.
  for (const char* name : {"tiled-coop", "naive", "constant", "texture"})
    EXPECT_EQ(regionOf(name, g2), IdleRegion::None) << name;
  // A block that covers its input tile in whole blocks yet computes in every thread (no idle count).
  const LaunchDescription sep = launchOf("separable", g2, 1280, 720);
  ASSERT_EQ(sep.passes.size(), 2u);
  for (const PassLaunch& p : sep.passes)
    EXPECT_EQ(idleRegion(p, variant("separable").workModel(g2, 1280, 720).idleThreads), IdleRegion::None);
  // stream: a warp's lanes over the apron's columns make no output.
  EXPECT_EQ(regionOf("stream", g2), IdleRegion::Columns);
  // Synthetic: the apron's rows; a count no part of the tile explains.
  PassLaunch rows;
  rows.outputTile = {32, 8, 1};
  rows.inputTile = {36, 12, 1};
  rows.inputOffsetX = rows.inputOffsetY = -2;
  EXPECT_EQ(idleRegion(rows, 4.0 / 12), IdleRegion::Rows);
  EXPECT_EQ(idleRegion(rows, 0.1), IdleRegion::Elsewhere);
  EXPECT_EQ(idleRegion(rows, 0), IdleRegion::None);
}

TEST(OverlayIdle, StreamsIdleLanesAreTheApronsColumns) {
  const FilterParams p = paramsFor("gaussian", 2);
  const LaunchDescription l = launchOf("stream", p, 1280, 720);
  const double idle = variant("stream").workModel(p, 1280, 720).idleThreads;
  const PassLaunch& s = l.passes.at(0);
  OverlayView v{1280, 720, {0, 0, 1280, 720}, {0, 0, 1280, 720}, Point{300.5, 300.5}};
  const HoveredTile t = *overlayGeometry(l, idle, v).passes.at(0).hovered;
  ASSERT_EQ(t.idle.size(), 2u);  // left and right, the input tile's whole height
  EXPECT_DOUBLE_EQ(t.idle[0].w, -s.inputOffsetX);
  EXPECT_DOUBLE_EQ(t.idle[0].h, t.input.h);
  EXPECT_DOUBLE_EQ(t.idle[1].x, t.output.x + t.output.w);
}

TEST(OverlayPasses, SeparableDrawsTheRowAndColumnPassesTiles) {
  const FilterParams p = paramsFor("gaussian", 3, {32, 8});
  const LaunchDescription l = launchOf("separable", p, 640, 480);
  const PassLaunch &row = l.passes.at(0), &col = l.passes.at(1);
  OverlayView v{640, 480, {0, 0, 640, 480}, {0, 0, 640, 480}, Point{200.5, 100.5}};
  const OverlayGeometry g = overlayGeometry(l, 0, v);
  ASSERT_EQ(g.passes.size(), 2u);
  EXPECT_EQ(g.passes[0].columns, row.grid.x);
  EXPECT_EQ(g.passes[0].rows, row.grid.y);
  EXPECT_EQ(g.passes[1].columns, col.grid.x);
  EXPECT_EQ(g.passes[1].rows, col.grid.y);
  EXPECT_DOUBLE_EQ(g.passes[0].tileW, row.outputTile.x);
  EXPECT_DOUBLE_EQ(g.passes[1].tileH, col.outputTile.y);
  // The row pass reads left and right of its tile, the column pass above and below.
  const HoveredTile &r = *g.passes[0].hovered, &c = *g.passes[1].hovered;
  ASSERT_EQ(r.apron.size(), 2u);
  EXPECT_DOUBLE_EQ(r.apron[0].h, row.outputTile.y);
  ASSERT_EQ(c.apron.size(), 2u);
  EXPECT_DOUBLE_EQ(c.apron[0].w, col.outputTile.x);
  EXPECT_TRUE(r.idle.empty());
  // One pass at a time.
  const OverlayGeometry only = overlayGeometry(l, 0, v, 1);
  ASSERT_EQ(only.passes.size(), 1u);
  EXPECT_EQ(only.passes[0].pass, 1u);
}

TEST(OverlayPasses, APassThatCoversNoFrameAreaIsSkippedAndSaid) {
  LaunchDescription l;
  PassLaunch transform;
  transform.pass = "forward transform";
  transform.kernel = "fftKernel";
  transform.outputTile = transform.inputTile = {0, 0, 0};
  l.passes.push_back(transform);  // outputTile {0, 0, 0}: nothing to draw
  PassLaunch tiles = launchOf("tiled-coop", paramsFor("gaussian", 1, {16, 16}), 64, 64).passes.at(0);
  l.passes.push_back(tiles);
  const OverlayGeometry g = overlayGeometry(l, 0, {64, 64, {0, 0, 64, 64}, {0, 0, 64, 64}, std::nullopt});
  ASSERT_EQ(g.passes.size(), 1u);
  EXPECT_EQ(g.passes[0].pass, 1u);
}

TEST(OverlayState, RecomputesTheLaunchOnlyWhenItsInputsChange) {
  BlockGridOverlay o;
  const Variant& tiled = variant("tiled");
  FilterParams p = paramsFor("gaussian", 2, {16, 16});
  o.follow(&tiled, p, 640, 480);
  o.follow(&tiled, p, 640, 480);
  EXPECT_EQ(o.launchesComputed(), 1u);
  EXPECT_EQ(o.launch().passes.at(0).outputTile, (Dims{12, 12, 1}));
  p = paramsFor("gaussian", 3, {16, 16});  // radius
  o.follow(&tiled, p, 640, 480);
  EXPECT_EQ(o.launchesComputed(), 2u);
  EXPECT_EQ(o.launch().passes.at(0).outputTile, (Dims{10, 10, 1}));
  p.tile = {32, 32};  // tile
  o.follow(&tiled, p, 640, 480);
  EXPECT_EQ(o.launch().passes.at(0).outputTile, (Dims{26, 26, 1}));
  o.follow(&tiled, p, 320, 240);  // frame size
  EXPECT_EQ(o.launchesComputed(), 4u);
  EXPECT_EQ(o.launch().passes.at(0).grid, (Dims{13, 10, 1}));
  o.follow(&variant("tiled-coop"), paramsFor("gaussian", 3, {32, 32}), 320, 240);  // variant
  EXPECT_EQ(o.launchesComputed(), 5u);
  EXPECT_EQ(o.launch().passes.at(0).outputTile, (Dims{32, 32, 1}));
  o.follow(&variant("tiled-coop"), paramsFor("gaussian", 3, {32, 32}), 320, 240);
  EXPECT_EQ(o.launchesComputed(), 5u);
}

// Grey frames are filtered as they are, by the variant's kernel for their type: the grid is that
// kernel's (tensorstream's typed instance: 64 pixels a warp on grey, not 16 RGBA8 pixels), the
// caption names the type, and a change of type alone recomputes the launch.
TEST(OverlayState, GreyFramesGetTheirOwnKernelsGrid) {
  BlockGridOverlay o;
  const Variant& ts = variant("tensorstream");
  const FilterParams p = paramsFor("gaussian", 4, {64, 64});
  const ImageDesc grey16{.width = 1280, .height = 720, .type = PixelType::U16, .channels = 1};
  o.follow(&ts, p, grey16);
  const LaunchDescription want = ts.describeLaunch(p, grey16);
  ASSERT_EQ(o.launch().passes.size(), 1u);
  EXPECT_EQ(o.launch().passes[0].kernel, want.passes.at(0).kernel);
  EXPECT_EQ(o.launch().passes[0].kernel.rfind("tensorStreamTypedKernel<u16x1", 0), 0u) << o.launch().passes[0].kernel;
  EXPECT_EQ(o.launch().passes[0].grid, (Dims{5, 12, 1}));  // 256 pixels a 4-warp block, 64 rows
  EXPECT_EQ(o.noGrid(), "");
  OverlayView v{1280, 720, {0, 0, 1280, 720}, {0, 0, 1280, 720}, std::nullopt};
  EXPECT_NE(joined(o.caption(o.geometry(v))).find("tensorstream at radius 4 on 1280x720 u16x1"), std::string::npos)
      << joined(o.caption(o.geometry(v)));
  // The same size as RGBA8: the RGBA8 kernel, recomputed; the caption names no type.
  o.follow(&ts, p, 1280, 720);
  EXPECT_EQ(o.launchesComputed(), 2u);
  EXPECT_EQ(o.launch().passes.at(0).kernel, ts.describeLaunch(p, 1280, 720).passes.at(0).kernel);
  EXPECT_NE(o.launch().passes[0].kernel, want.passes[0].kernel);
  EXPECT_NE(joined(o.caption(o.geometry(v))).find("on 1280x720; tile"), std::string::npos)
      << joined(o.caption(o.geometry(v)));
  // 8-bit grey on stream: its typed kernel too.
  const ImageDesc grey8{.width = 1280, .height = 720, .type = PixelType::U8, .channels = 1};
  const FilterParams s = paramsFor("gaussian", 2);
  o.follow(&variant("stream"), s, grey8);
  EXPECT_EQ(o.launchesComputed(), 3u);
  EXPECT_EQ(o.launch().passes.at(0).kernel, variant("stream").describeLaunch(s, grey8).passes.at(0).kernel);
  EXPECT_NE(o.launch().passes[0].kernel, variant("stream").describeLaunch(s, 1280, 720).passes.at(0).kernel);
}

TEST(OverlayState, ThePassShownStepsThroughATwoPassLaunch) {
  BlockGridOverlay o;
  o.follow(&variant("separable"), paramsFor("gaussian", 2), 640, 480);
  EXPECT_EQ(o.passShown(), -1);
  EXPECT_NE(o.nextPass().find("row pass"), std::string::npos);
  EXPECT_EQ(o.passShown(), 0);
  EXPECT_NE(o.nextPass().find("column pass"), std::string::npos);
  EXPECT_NE(o.nextPass().find("every pass"), std::string::npos);
  EXPECT_EQ(o.passShown(), -1);
  o.follow(&variant("tiled"), paramsFor("gaussian", 2), 640, 480);
  EXPECT_NE(o.nextPass().find("one pass"), std::string::npos);
  EXPECT_EQ(o.passShown(), -1);
}

TEST(OverlayCaption, SaysTheVariantTileApronIdleThreadsAndTheHoveredBlock) {
  BlockGridOverlay o;
  o.follow(&variant("tiled"), paramsFor("gaussian", 2, {16, 16}), 64, 48);
  OverlayView v{64, 48, {0, 0, 64, 48}, {0, 0, 64, 48}, Point{30.5, 5.5}};
  const std::string text = joined(o.caption(o.geometry(v)));
  EXPECT_NE(text.find("tiled at radius 2 on 64x48; tile 16x16: thread block = input tile"), std::string::npos) << text;
  EXPECT_NE(text.find("tiledKernel<16, 16>, grid 6x4 of 16x16 threads"), std::string::npos) << text;
  EXPECT_NE(text.find("output tile 12x12 px, input tile 16x16 px, apron 2 px each side"), std::string::npos) << text;
  EXPECT_NE(text.find("idle threads"), std::string::npos) << text;
  EXPECT_NE(text.find("44%"), std::string::npos) << text;  // (256 - 144) / 256
  EXPECT_NE(text.find("block (2, 0), pixels x 24..35, y 0..11"), std::string::npos) << text;
  EXPECT_EQ(text.find("thinned"), std::string::npos) << text;
  // Zoomed out until tiles are 3 px: the caption says the lines are thinned.
  v.frame = {0, 0, 16, 12};
  EXPECT_NE(joined(o.caption(o.geometry(v))).find("thinned: lines on every 2nd tile edge"), std::string::npos);
  // Without a cursor it says how to see an apron.
  v.cursor.reset();
  EXPECT_NE(joined(o.caption(o.geometry(v))).find("point at the video"), std::string::npos);
}

TEST(OverlayCaption, EachPassWithItsApronAndTheHoveredTileOfEach) {
  BlockGridOverlay o;
  o.follow(&variant("separable"), paramsFor("gaussian", 3, {32, 4}), 1280, 720);
  const std::string text =
      joined(o.caption(o.geometry({1280, 720, {0, 0, 1280, 720}, {0, 0, 1280, 720}, Point{400.5, 300.5}})));
  EXPECT_NE(text.find("row pass: rowPassKernel<32, 4>, grid 10x180"), std::string::npos) << text;
  EXPECT_NE(text.find("output tile 128x4 px, input tile 192x4 px, apron 32 px left and right, 0 px above and below"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("column pass: colPassKernel<32, 4>, grid 40x45"), std::string::npos) << text;
  EXPECT_NE(text.find("apron 0 px left and right, 4 px above and below"), std::string::npos) << text;
  EXPECT_NE(text.find("under the cursor: row pass: block (3, 75)"), std::string::npos) << text;
  EXPECT_NE(text.find("under the cursor: column pass: block (12, 18)"), std::string::npos) << text;
  EXPECT_EQ(text.find("idle threads"), std::string::npos) << text;
}

TEST(OverlayCaption, ACpuVariantHasNoGridAndSaysSo) {
  BlockGridOverlay o;
  o.follow(&variant("cpu-simd"), paramsFor("gaussian", 2), 640, 480);
  EXPECT_EQ(o.noGrid(), variant("cpu-simd").describeLaunch(paramsFor("gaussian", 2), 640, 480).none);
  const OverlayGeometry g = o.geometry({640, 480, {0, 0, 640, 480}, {0, 0, 640, 480}, Point{10, 10}});
  EXPECT_TRUE(g.passes.empty());
  const auto lines = o.caption(g);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].text.find("cpu-simd"), std::string::npos) << lines[0].text;
  EXPECT_NE(lines[0].text.find("no block grid"), std::string::npos) << lines[0].text;
  EXPECT_NE(lines[0].text.find("CPU"), std::string::npos) << lines[0].text;
  BlockGridOverlay none;
  EXPECT_EQ(none.noGrid(), "no frame shown yet");
}

}  // namespace
}  // namespace convlive
