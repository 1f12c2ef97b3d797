// convlive: filter video (the viewer, headless runs, file export) or a still image with any
// convolution variant.
#include <CLI/CLI.hpp>
#include <iostream>

#include "convlive/variants.hpp"
#include "still.hpp"
#include "tune.hpp"
#include "video.hpp"
#include "viewer/command.hpp"

int main(int argc, char** argv) {
  using namespace convlive;
  StillOptions o;
  bool list = false;
  std::string direction = "horizontal";
  VideoOptions video;
  bool listCams = false, listPatterns = false, headless = false;
  CLI::App app{"convlive: real-time video filtering with CUDA convolution kernels"};
  app.footer(
      "Examples:\n"
      "  convlive                                                          the viewer on the moving test pattern\n"
      "  convlive --input clip.webm --mask sobel                           a video file in the viewer\n"
      "  convlive --offscreen --frames 60 --screenshot view.png            no window: draw offscreen (EGL)\n"
      "  convlive --headless --frames 300 --mask gaussian --radius 4      test pattern, summary of every stage\n"
      "  convlive --input clip.mp4 --output blurred.webm --radius 8        filter a video into a file\n"
      "  convlive --headless --camera --seconds 10 --mask sobel            a camera, 10 s\n"
      "  convlive --image in.png --output out.png --mask sharpen           one picture\n"
      "  convlive --tune                                                   measure which variant auto picks here");
  std::string demo;
  app.add_option("--demo", demo, "Write a test picture and filtered versions of it into this folder, then exit");
  app.add_flag("--list-variants", list, "Print the kernel variants with their limits and tiles, then exit");
  bool tune = false;
  app.add_flag("--tune", tune,
               "Time the fast variants on this GPU for common sizes and masks, fill the cache auto reads, print the "
               "table, then exit");
  app.add_option("--image", o.input, "Input PNG (a still image; --output names the PNG to write)");
  app.add_option("--output", o.output,
                 "Output file: a .png with --image, else a video (.webm VP8, .mkv, .mp4 H.264, .avi MJPEG)");
  // Sources.
  app.add_option("--input", video.input, "Video source: a file or a URI (file://, http://, rtsp://)");
  app.add_option("--camera", video.camera, "Video source: a V4L2 camera (default: the first one)")->expected(0, 1);
  app.add_option("--launch", video.launch, "Video source: a gst-launch line ending in '! videoconvert ! appsink'");
  app.add_option("--pattern", video.pattern, "Test pattern (see --list-patterns)")->capture_default_str();
  app.add_option("--size", video.size, "Test pattern size WxH")->capture_default_str();
  app.add_option("--fps", video.fps, "Test pattern rate")->capture_default_str();
  app.add_flag("--list-cameras", listCams, "Print the cameras present, then exit");
  app.add_flag("--list-patterns", listPatterns, "Print the test patterns, then exit");
  // Runs.
  // The viewer.
  ViewerCommandOptions viewer;
  app.add_flag("--offscreen", viewer.offscreen,
               "Viewer: draw offscreen (headless EGL) instead of in a window (the default without a display)");
  app.add_option("--screenshot", viewer.screenshot, "Viewer: write a PNG of the window (video and panel) at the end");
  app.add_flag("!--no-vsync", viewer.vsync, "Viewer: draw as fast as possible instead of at the display's refresh");
  app.add_option("--window-size", viewer.windowSize, "Viewer: window (or offscreen surface) size WxH")
      ->capture_default_str();
  app.add_flag("--split", viewer.split, "Viewer: start in split view (original | filtered)");
  app.add_option("--view", viewer.view, "Viewer: fit, fill or 1:1")
      ->check(CLI::IsMember({"fit", "fill", "1:1"}))
      ->capture_default_str();
  app.add_flag("--headless", headless, "Run the pipeline with no display and print a per-stage summary");
  app.add_option("--frames", video.frames, "Stop after this many frames");
  app.add_option("--seconds", video.seconds, "Stop after this many seconds");
  app.add_option("--report", video.report, "Write the run's figures to this JSON file");
  app.add_option("--slots", video.slots, "Pinned slots in the ring: frames in flight (1..16)")->capture_default_str();
  app.add_flag("--pageable", video.pageable, "Upload from pageable memory instead of pinned slots (to compare)");
  app.add_flag("--copy-to-pinned", video.copyToPinned,
               "Copy each frame into a pinned slot instead of page-locking GStreamer's buffers (to compare)");
  app.add_option("--sink", video.sink,
                 "Headless: null drops filtered frames on the GPU; download brings each back to host memory")
      ->check(CLI::IsMember({"null", "download"}))
      ->capture_default_str();
  app.add_flag("--no-overlap", video.noOverlap, "Finish each frame before starting the next (to compare)");
  app.add_flag("--realtime", video.realtime, "Pace frames to the source's clock instead of running flat out");
  app.add_flag("--loop", video.loop, "Start again at the end of the source");
  app.add_flag("--decode-only", video.decodeOnly,
               "Headless: only take frames from the source and drop them (its rate, for comparison)");
  std::string kinds;
  for (const auto& k : filterKinds()) kinds += (kinds.empty() ? "" : ", ") + k;
  app.add_option("--mask", o.mask, "Filter: " + kinds)->capture_default_str();
  app.add_option("--radius", o.filter.radius, "Mask radius (size 2r+1)")->capture_default_str();
  app.add_option("--sigma", o.filter.sigma, "Gaussian sigma (default 0.3*(r-1)+0.8)");
  app.add_option("--weights", o.filter.weights, "Custom weights: rows split by ';', values by ','");
  app.add_flag("--normalize", o.filter.normalize, "Divide custom weights by their sum");
  app.add_option("--pitch", o.filter.pitch, "Pitch in pixels for --mask pitch (1..64)")->capture_default_str();
  app.add_option("--direction", direction, "Pitch direction: horizontal or vertical")->capture_default_str();
  app.add_option("--border", o.border, "Border mode: zero, clamp, mirror (reflect-101), wrap")->capture_default_str();
  app.add_option("--variant", o.variant, "Kernel variant (see --list-variants), or auto")->capture_default_str();
  app.add_option("--tile", o.tile, "Tile shape WxH among the variant's (default: its first)");
  app.add_flag("--filter-alpha", o.filterAlpha, "Filter the alpha channel too (default: alpha passes through)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "convlive: " << e.what() << " (see --help)\n";
    return kBadInput;
  }
  if (list) {
    listVariants(std::cout);
    return kOk;
  }
  if (tune) return runTune(std::cout, std::cerr);
  if (listCams) return listCamerasCommand(std::cout, std::cerr);
  if (listPatterns) return listPatternsCommand(std::cout, std::cerr);
  if (!demo.empty()) return runDemo(demo, std::cout, std::cerr);
  if (direction != "horizontal" && direction != "vertical") {
    std::cerr << "convlive: --direction '" << direction << "' must be horizontal or vertical\n";
    return kBadInput;
  }
  o.filter.vertical = direction == "vertical";
  video.useCamera = app.count("--camera") > 0;
  const bool png = o.output.size() >= 4 &&
                   (o.output.substr(o.output.size() - 4) == ".png" || o.output.substr(o.output.size() - 4) == ".PNG");
  if (!o.input.empty() || png) return runStill(o, std::cout, std::cerr);
  if (!o.output.empty()) {
    video.output = o.output;
    return runExport(video, o, std::cout, std::cerr);
  }
  if (headless) {
    if (!viewer.screenshot.empty() || viewer.offscreen) {
      std::cerr << "convlive: --screenshot and --offscreen belong to the viewer: leave out --headless\n";
      return kBadInput;
    }
    return runHeadless(video, o, std::cout, std::cerr);
  }
  if (video.decodeOnly || video.sink != "null") {
    std::cerr << "convlive: --decode-only and --sink are for --headless runs\n";
    return kBadInput;
  }
  return runViewer(video, o, viewer, std::cout, std::cerr);
}
