// Draws the frame textures into the video area of the default framebuffer with the shaders in
// shaders/ (one quad; the split view is done in the fragment shader). Render thread only.
#pragma once

#include "gl/frame_texture.hpp"
#include "gl/resources.hpp"
#include "view.hpp"

namespace convlive {

class Renderer {
 public:
  Renderer();  // compiles the shaders: throws GlError with the compiler's log
  // Clears `area` and draws `filtered` into `frame` (both framebuffer pixels, origin top-left),
  // clipped to the area. dividerX >= 0: split view with `original` left of that x.
  void draw(int fbWidth, int fbHeight, const Rect& area, const Rect& frame, const FrameTexture& filtered,
            const FrameTexture* original, double dividerX);

 private:
  GlProgram program_;
  GlVertexArray vao_;
  GLint rectLoc_, dividerLoc_, filteredLoc_, originalLoc_;
};

}  // namespace convlive
