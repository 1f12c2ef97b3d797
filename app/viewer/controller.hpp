// The viewer's filter (a FilterSpec) and the changes the panel and the keys make to them. Both go
// through here, so a key press, a panel click and a test all take the same path to the pipeline.
// Render thread only.
#pragma once

#include <string>

#include "convlive/border.hpp"
#include "convlive/mask.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"

namespace convlive {

class Pipeline;

class FilterController {
 public:
  // Applies `initial` to the pipeline (throws std::invalid_argument when it cannot run).
  FilterController(Pipeline& pipeline, const FilterSpec& initial);
  // The settings the pipeline runs (the last change it took).
  const FilterSpec& applied() const { return applied_; }
  // Tries a change: "" when the pipeline took it (it applies to the next frame), else the reason
  // worded for the panel (its widgets' names); then nothing changes. The outcome is also kept in
  // message().
  std::string apply(const FilterSpec& next);
  // Sets one setting by name from text (a generated widget's edit), then apply().
  std::string set(const std::string& setting, const std::string& value);
  // Steps through "auto" and the variants that can run the current filter on the current frame.
  std::string cycleVariant(int direction = 1);
  std::string cycleMask(int direction = 1);
  // Steps through the running variant's tiles (a message when it offers none).
  std::string cycleTile(int direction = 1);
  // Radius up or down by one (within what the mask and the variant take).
  std::string changeRadius(int delta);
  // Why `v` cannot run the applied filter on a width x height frame (empty when it can); the
  // one-argument form asks about the current frame (see frameSize).
  Problem whyNot(const Variant& v, int width, int height) const;
  Problem whyNot(const Variant& v) const;
  // The variant actually running ("auto" resolved) and its tile.
  const Variant* running() const;
  Tile runningTile() const;
  // With "auto": what it chose and why (measured times of the winner and the runner-up); else "".
  std::string autoChoice() const;
  // Grey sources: "" when the running variant filters their frames as they come; else why it
  // cannot (they are expanded to RGBA8 first).
  std::string greyExpandedWhy() const;
  // The last change's outcome, for the panel: "" after a success.
  const std::string& message() const { return message_; }
  // Frame size the checks use: the last frame's, else the source's.
  void frameSize(int& width, int& height) const;

 private:
  Pipeline& pipeline_;
  FilterSpec applied_;
  FilterParams appliedParams_;  // what applied_ describes, built once per change
  std::string message_;
};

}  // namespace convlive
