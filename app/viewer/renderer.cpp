#include "renderer.hpp"

#include <cmath>

#include "convlive_shaders.hpp"

namespace convlive {

Renderer::Renderer()
    : program_(makeProgram("frame", shaders::frame_vert, shaders::frame_frag)), vao_(makeVertexArray()) {
  rectLoc_ = glGetUniformLocation(program_.get(), "u_rect");
  dividerLoc_ = glGetUniformLocation(program_.get(), "u_divider");
  filteredLoc_ = glGetUniformLocation(program_.get(), "u_filtered");
  originalLoc_ = glGetUniformLocation(program_.get(), "u_original");
}

void Renderer::draw(int fbW, int fbH, const Rect& area, const Rect& frame, const FrameTexture& filtered,
                    const FrameTexture* original, double dividerX) {
  glViewport(0, 0, fbW, fbH);
  glEnable(GL_SCISSOR_TEST);
  // GL's window origin is bottom-left.
  glScissor(GLint(area.x), GLint(fbH - area.y - area.h), GLsizei(area.w), GLsizei(area.h));
  glClearColor(0.09f, 0.09f, 0.1f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  if (!filtered.empty()) {
    const double s = frame.w / filtered.width();
    // Whole-number magnification and large zooms show pixels as squares; otherwise smooth.
    const bool nearest = (s >= 1 && std::abs(s - std::round(s)) < 1e-9) || s >= 4;
    const bool split = dividerX >= 0 && original && !original->empty();
    auto bind = [&](const FrameTexture& t, int unit) {
      glActiveTexture(GL_TEXTURE0 + unit);
      glBindTexture(GL_TEXTURE_2D, t.id());
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, nearest ? GL_NEAREST : GL_LINEAR);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, nearest ? GL_NEAREST : GL_LINEAR);
    };
    bind(filtered, 0);
    bind(split ? *original : filtered, 1);
    glUseProgram(program_.get());
    glUniform1i(filteredLoc_, 0);
    glUniform1i(originalLoc_, 1);
    glUniform1f(dividerLoc_, split ? float(dividerX) : -1.f);
    const auto ndcX = [&](double x) { return float(2 * x / fbW - 1); };
    const auto ndcY = [&](double y) { return float(1 - 2 * y / fbH); };
    glUniform4f(rectLoc_, ndcX(frame.x), ndcY(frame.y), ndcX(frame.x + frame.w), ndcY(frame.y + frame.h));
    glBindVertexArray(vao_.get());
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
  }
  glDisable(GL_SCISSOR_TEST);
  checkGl("drawing the frame");
}

}  // namespace convlive
