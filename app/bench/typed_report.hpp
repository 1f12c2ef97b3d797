// convlive-bench's typed mode (typed_bench.cpp), the parts that need no GPU: its lists ("u8x4",
// "16x1920x1080") and the summary of its rows (per type, frame shape and radius: the copy time,
// auto's and the best time, the ratio to the copy, the batch's share of the single frame's
// throughput, each against issue 35's targets). Header-only and free of the library's headers, so
// the bench tests read it too.
#pragma once

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bench_args.hpp"

namespace convlive::bench {

// One pixel type: "u8x4" = 8-bit unsigned values, 4 channels.
struct TypeSpec {
  std::string type;  // "u8", "u16", "f16", "f32"
  int channels = 4;  // 1, 3 or 4
  std::string str() const { return type + "x" + std::to_string(channels); }
  int valueBytes() const { return type == "u8" ? 1 : type == "f32" ? 4 : 2; }
};

// "u8x4" -> {u8, 4}; nullopt for anything else (types u8 u16 f16 f32, channels 1 3 4).
inline std::optional<TypeSpec> parseType(const std::string& s) {
  const auto x = s.find('x');
  if (x == std::string::npos) return std::nullopt;
  TypeSpec t{s.substr(0, x), 0};
  if (t.type != "u8" && t.type != "u16" && t.type != "f16" && t.type != "f32") return std::nullopt;
  const auto c = parseInt(s.substr(x + 1), 1);
  if (!c || (*c != 1 && *c != 3 && *c != 4)) return std::nullopt;
  t.channels = *c;
  return t;
}

inline const char* defaultTypes() { return "u8x1,u8x3,u8x4,u16x1,u16x4,f16x1,f16x4,f32x1,f32x3,f32x4"; }

// A batch of frames: "16x1920x1080" = 16 frames of 1920x1080.
struct BatchSpec {
  int batch = 1, width = 0, height = 0;
  std::string str() const { return std::to_string(batch) + "x" + std::to_string(width) + "x" + std::to_string(height); }
};

// "NxWxH" with N, W, H >= 1; nullopt otherwise.
inline std::optional<BatchSpec> parseBatch(const std::string& s) {
  std::vector<int> v;
  std::size_t from = 0;
  while (true) {
    const auto x = s.find('x', from);
    const auto n = parseInt(s.substr(from, x == std::string::npos ? std::string::npos : x - from), 1);
    if (!n) return std::nullopt;
    v.push_back(*n);
    if (x == std::string::npos) break;
    from = x + 1;
  }
  if (v.size() != 3) return std::nullopt;
  return BatchSpec{v[0], v[1], v[2]};
}

// Issue 35's targets: a filter within 1.3x the copy of the same bytes for r = 1..16; a batch's
// per-pixel throughput at least 95% of the 4K single frame's for 16 x 1080p, 80% for 64 x 256x256.
constexpr double kCopyRatioTarget = 1.3;
constexpr int kCopyRatioMaxRadius = 16;
inline std::optional<double> shareTarget(int batch, int width, int height) {
  if (batch == 16 && width == 1920 && height == 1080) return 0.95;
  if (batch == 64 && width == 256 && height == 256) return 0.80;
  return std::nullopt;
}

// The summary of typed-mode rows (the gaussian's: rows of another mask, e.g. custom2d, are left
// out). Each row: type, channels, width, height, batch, radius (null for the copy), variant ("copy", "auto" or a
// variant's name), tile, median_ms, error (null when timed). One summary row per (type, channels, width, height, batch,
// radius) with a timed convlive row: copy_ms, auto_ms and auto's choice, the best row (any variant and tile, auto
// included), its ratio to the copy and MPix/s; a batch (batch > 1) also gets its share of the per-pixel throughput of
// the largest single frame timed of the same type, channels and radius, and the copy kernel's own
// share between those two shapes (copy_share_of_single: the ceiling that launch costs leave).
inline nlohmann::json summarizeTyped(const nlohmann::json& rows) {
  using nlohmann::json;
  using Shape = std::tuple<std::string, int, int, int, int>;  // type, channels, width, height, batch
  using Key = std::tuple<std::string, int, int, int, int, int>;
  const auto shapeOf = [](const json& r) {
    return Shape{r["type"].get<std::string>(), r["channels"].get<int>(), r["width"].get<int>(), r["height"].get<int>(),
                 r["batch"].get<int>()};
  };
  const auto timed = [](const json& r) {
    return r.contains("median_ms") && r["median_ms"].is_number() && (!r.contains("error") || r["error"].is_null());
  };
  std::map<Shape, double> copyMs;
  std::map<Key, json> best, autoRow;
  for (const auto& r : rows) {
    if (!timed(r) || r.value("mask", std::string("gaussian")) != "gaussian") continue;
    const Shape s = shapeOf(r);
    if (r["variant"] == "copy") {
      copyMs[s] = r["median_ms"].get<double>();
      continue;
    }
    const auto& [type, ch, w, h, b] = s;
    const Key k{type, ch, w, h, b, r["radius"].get<int>()};
    if (!best.count(k) || r["median_ms"].get<double>() < best[k]["median_ms"].get<double>()) best[k] = r;
    if (r["variant"] == "auto") autoRow[k] = r;
  }
  // Per (type, channels, radius): the largest single frame's MPix/s (its best row).
  std::map<std::tuple<std::string, int, int>, std::pair<double, double>> single;  // -> (pixels, mpix/s)
  const auto mpixOf = [](const json& r) {
    return double(r["batch"].get<int>()) * r["width"].get<int>() * r["height"].get<int>() / 1e3 /
           r["median_ms"].get<double>();
  };
  for (const auto& [k, r] : best) {
    const auto& [type, ch, w, h, b, radius] = k;
    if (b != 1) continue;
    const double pixels = double(w) * h;
    auto& s = single[{type, ch, radius}];
    if (pixels > s.first) s = {pixels, mpixOf(r)};
  }
  json out = json::array();
  for (const auto& [k, r] : best) {
    const auto& [type, ch, w, h, b, radius] = k;
    json row{{"type", type},
             {"channels", ch},
             {"width", w},
             {"height", h},
             {"batch", b},
             {"radius", radius},
             {"best_ms", r["median_ms"]},
             {"best_variant", r["variant"]},
             {"best_tile", r.value("tile", "")},
             {"mpix_s", mpixOf(r)},
             {"copy_ms", nullptr},
             {"ratio_to_copy", nullptr},
             {"ratio_target", nullptr},
             {"meets_ratio_target", nullptr},
             {"auto_ms", nullptr},
             {"auto_choice", nullptr}};
    if (const auto c = copyMs.find({type, ch, w, h, b}); c != copyMs.end() && c->second > 0) {
      row["copy_ms"] = c->second;
      const double ratio = r["median_ms"].get<double>() / c->second;
      row["ratio_to_copy"] = ratio;
      if (radius >= 1 && radius <= kCopyRatioMaxRadius) {
        row["ratio_target"] = kCopyRatioTarget;
        row["meets_ratio_target"] = ratio <= kCopyRatioTarget;
      }
    }
    if (const auto a = autoRow.find(k); a != autoRow.end()) {
      row["auto_ms"] = a->second["median_ms"];
      row["auto_choice"] = a->second.value("chosen", "");
    }
    if (b > 1) {
      row["share_of_single"] = nullptr;
      row["single_size"] = nullptr;
      row["copy_share_of_single"] = nullptr;
      if (const auto s = single.find({type, ch, radius}); s != single.end() && s->second.second > 0) {
        row["share_of_single"] = mpixOf(r) / s->second.second;
        // the single frame's size, found again from its pixel count
        for (const auto& [k2, r2] : best) {
          const auto& [t2, c2, w2, h2, b2, r2radius] = k2;
          if (t2 == type && c2 == ch && b2 == 1 && r2radius == radius && double(w2) * h2 == s->second.first) {
            row["single_size"] = std::to_string(w2) + "x" + std::to_string(h2);
            // the copy's own share: what per-launch costs leave of its throughput at the batch's frame size
            const auto cb = copyMs.find({type, ch, w, h, b}), cs = copyMs.find({type, ch, w2, h2, 1});
            if (cb != copyMs.end() && cs != copyMs.end() && cb->second > 0 && cs->second > 0)
              row["copy_share_of_single"] = (double(b) * w * h / cb->second) / (double(w2) * h2 / cs->second);
            break;
          }
        }
      }
      const auto target = shareTarget(b, w, h);
      row["share_target"] = target ? json(*target) : json(nullptr);
      row["meets_share_target"] = target && row["share_of_single"].is_number()
                                      ? json(row["share_of_single"].get<double>() >= *target)
                                      : json(nullptr);
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace convlive::bench
