// Draws the block-grid overlay (overlay.hpp's geometry and caption) into an ImGui draw list: the
// grid lines, the hovered tile's apron and idle threads, and the caption in the video area's
// top-left corner. The viewer draws it into the background list, over the video and under the
// panel. Render thread, between ImGui::NewFrame and ImGui::Render.
#pragma once

#include <cstdint>
#include <vector>

#include "overlay.hpp"

struct ImDrawList;

namespace convlive {

struct OverlayColour {
  std::uint8_t r, g, b, a;
};
// What each ink looks like: grid lines in the pass's colour, the apron a translucent blue, idle
// threads red hatching (tests look for them).
OverlayColour overlayColour(OverlayInk ink);

// `scaleX`, `scaleY`: framebuffer pixels per ImGui unit (the geometry is in framebuffer pixels).
// Grid lines are one framebuffer pixel wide, on the first pixel of each tile (the screen pixel
// holding the tile edge). The grid is cut to the geometry's clip, the caption to `area`. Returns
// the caption's rectangle in framebuffer pixels (empty without a caption).
Rect paintOverlay(ImDrawList& list, const OverlayGeometry& g, const std::vector<CaptionLine>& caption, const Rect& area,
                  double scaleX = 1, double scaleY = 1);

}  // namespace convlive
