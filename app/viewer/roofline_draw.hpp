// Draws a RooflineChart into the current ImGui window with its draw list: decade grid and labels,
// the memory slope and the compute roofs, a dot per point (the highlighted one larger, ringed and
// named), and a tooltip for the point under the mouse. Render thread, inside an ImGui window.
#pragma once

#include <string>

#include "roofline.hpp"

namespace convlive {

struct RooflineDrawn {
  ChartRect plot;       // the axes' area, in ImGui screen units
  int pointsDrawn = 0;  // plottable points drawn
  int hovered = -1;     // index into chart.points() under the mouse, -1 none
};

// `height` ImGui units tall, the window's width; `noRoofs` is written in the chart when it has no
// roofs to draw ("" to say nothing).
RooflineDrawn drawRoofline(const RooflineChart& chart, float height, const std::string& noRoofs);

// "12.3 GFLOP/s", "4.56 TFLOP/s"; "1.2 TB/s"; compact numbers for axes ("0.1", "10", "1k", "10M").
std::string rateText(double gflops);
std::string bandwidthText(double gbs);
std::string axisNumber(double value);

}  // namespace convlive
