#include "demo.hpp"

#include <cmath>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <utility>

#include "convlive/resources.hpp"
#include "guarded.hpp"
#include "image_io.hpp"
#include "still.hpp"

namespace convlive {

HostImage demoPattern(int width, int height) {
  HostImage img(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = img.view().row(y) + 4 * x;
      const double u = double(x) / width, v = double(y) / height;
      const double dx = x - width * 0.3, dy = y - height * 0.5, ring = std::sqrt(dx * dx + dy * dy);
      const bool checker = x > width * 0.6 && ((x / 16 + y / 16) % 2 == 0);
      const bool lines = x > width * 0.6 && y > height * 0.55 && (x % 7 == 0 || y % 11 == 0);
      const double rings = 127.5 * (1 + std::sin(ring * ring / 900.0));  // a zone plate: rising frequency
      p[0] = static_cast<std::uint8_t>(checker ? 230 : x < width * 0.6 ? rings : 255 * u);
      p[1] = static_cast<std::uint8_t>(lines ? 20 : x < width * 0.6 ? rings * 0.8 : 255 * v);
      p[2] = static_cast<std::uint8_t>(checker ? 40 : x < width * 0.6 ? 255 - rings : 128);
      p[3] = 255;
    }
  return img;
}

int runDemo(const std::string& dir, std::ostream& log, std::ostream& err) {
  return guarded(err, [&] {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec) && !fs::create_directories(dir, ec))
      throw std::invalid_argument("demo: cannot make the folder '" + dir + "' (" + ec.message() + ")");
    const HostImage in = demoPattern(1280, 720);
    writePng(dir + "/input.png", in);
    log << "demo: wrote " << dir << "/input.png (1280x720 test pattern)\n";
    const std::pair<const char*, FilterSpec> filters[] = {
        {"gaussian", {.radius = 5}}, {"sharpen", {.radius = 2}}, {"sobel", {.radius = 1}}, {"pitch", {.pitch = 3.4f}}};
    bool first = true;
    for (const auto& [kind, options] : filters) {
      FilterParams p;
      p.filter = makeFilter(kind, options);
      // auto's choice for each mask on a GPU; without one, that the CPU runs, once.
      const FilteredImage r = filterImage(in, p, "auto", log, first || deviceInfo().available);
      first = false;
      const std::string out = dir + "/" + kind + ".png";
      writePng(out, r.image);
      describeFiltered(log, "demo: wrote " + out, p, r);
    }
  });
}

}  // namespace convlive
