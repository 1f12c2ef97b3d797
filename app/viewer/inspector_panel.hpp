// The panel's Inspector, Roofline and Compare sections, drawn from an Inspector (inspector.hpp)
// fed from the PanelModel. Render thread, inside the panel's ImGui window; update() once a pass
// whether the sections are open or not (the live times go into the book either way).
#pragma once

#include "inspector.hpp"
#include "panel.hpp"
#include "panel_model.hpp"

namespace convlive {

class InspectorPanel {
 public:
  void update(PanelModel& m);
  // Each draws its section's body and notes what it drew in `rec`.
  void inspectorSection(PanelRecord& rec);
  void rooflineSection(PanelRecord& rec);
  void compareSection(PanelRecord& rec);

 private:
  Inspector inspector_;
  Roofs roofs_;
  bool pauseVideo_ = true;
};

}  // namespace convlive
