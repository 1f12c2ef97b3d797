// What the panel reads and the changes it may make: the panel's whole view of the viewer. The
// viewer fills PanelFacts once a pass and implements the few calls; the panel knows nothing else
// of it (panel.hpp does not include viewer.hpp). Render thread only: facts() stays valid for the
// pass (until the viewer's next frame()).
#pragma once

#include <string>
#include <vector>

#include "controller.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/timing.hpp"
#include "key_bindings.hpp"
#include "pipeline_worker.hpp"
#include "view.hpp"

namespace convlive {

struct PanelFacts {
  SourceInfo source;
  Timings timings;  // the pipeline's stages
  // The last frame shown as it was filtered: RGBA8, or a grey source's frame as it came (one channel).
  ImageDesc frames;
  std::vector<StageStats> viewerStages;  // the viewer's (present, panel, draw, ...)
  bool paused = false, ended = false, loop = false;
  double positionSeconds = 0;  // within [0, duration]; the duration itself at the end of the stream
  std::string sourceError;     // the pipeline's error: shown for as long as it holds
  PendingSource opening;       // a source being opened in the background (what empty: none)
  std::string status;          // the status line (an action's outcome), "" once it has faded out
  float statusOpacity = 0;     // 1, then fading to 0 before it goes
  std::string presentPath, memoryMode;
  double copyGBs = 0;  // the device's copy bandwidth, 0 when unknown
  FilterPace pace;     // whether the filter keeps up
  FitMode fitMode = FitMode::Fit;
  bool split = false, panelShown = true, helpShown = false;
  bool focusPath = false;  // this pass only: put the cursor in the File-or-URI box (the `l` key)
};

class PanelModel {
 public:
  virtual const PanelFacts& facts() const = 0;
  // The filter's settings and the changes to them (the same path as the keys).
  virtual FilterController& filter() = 0;
  // What a key does; the panel's buttons for the same things call it.
  virtual void apply(Action a) = 0;
  // Starts opening another source (the current one plays on until it delivers).
  virtual void openSource(const SourceSpec& spec) = 0;
  virtual void seek(double seconds) = 0;
  virtual void setLoop(bool on) = 0;
  virtual void setView(FitMode mode, bool split) = 0;
  virtual void setHelpShown(bool on) = 0;
  // Shows `message` on the status line ("" clears it).
  virtual void say(const std::string& message) = 0;

 protected:
  ~PanelModel() = default;
};

}  // namespace convlive
