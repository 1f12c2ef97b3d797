// The OpenGL context the viewer draws into, behind one small interface: a GLFW window (a desktop
// with a display) or headless EGL (no display: the NVIDIA EGL device on a GPU server, Mesa's
// software device elsewhere). The renderer, the panel and the CUDA-GL interop run the same on both.
//
// Threading: create, use and destroy a context on one thread (the render thread); it is current on
// that thread from creation on. GL entry points are loaded (GLEW) when the constructor returns.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

struct GLFWwindow;

namespace convlive {

// A context that could not be made: what failed and what to do.
class GlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ContextOptions {
  int width = 1600, height = 900;  // window (GLFW) or drawing surface (EGL) size in pixels
  bool vsync = true;               // GLFW: swap on the display's refresh; EGL: ignored (nothing to wait for)
  std::string title = "convlive";
};

class GlContext {
 public:
  virtual ~GlContext() = default;
  // "GLFW window" / "headless EGL (device)", then GL_RENDERER and GL_VERSION.
  virtual std::string description() const = 0;
  virtual bool headless() const = 0;
  // True once the user asked to close the window (never for EGL).
  virtual bool shouldClose() const = 0;
  virtual void requestClose() = 0;
  // Handles window events (input goes to the callbacks ImGui's GLFW backend installed).
  virtual void pollEvents() = 0;
  // Shows the frame drawn into the default framebuffer.
  virtual void swapBuffers() = 0;
  // The default framebuffer's size in pixels.
  virtual void framebufferSize(int& width, int& height) const = 0;
  // Fullscreen on the primary monitor, or back; false when the context cannot (EGL).
  virtual bool setFullscreen(bool on) = 0;
  virtual bool fullscreen() const = 0;
  // The GLFW window (ImGui's GLFW backend takes it); nullptr for EGL.
  virtual GLFWwindow* window() const { return nullptr; }
};

// Throws GlError naming why (no display, no OpenGL 3.3 core, ...).
std::unique_ptr<GlContext> makeWindowContext(const ContextOptions& options);
std::unique_ptr<GlContext> makeHeadlessContext(const ContextOptions& options);
// True when a window system is there to open a window on (DISPLAY or WAYLAND_DISPLAY set).
bool displayAvailable();

// GL_RENDERER and GL_VERSION of the current context, for descriptions.
std::string glDescription();

}  // namespace convlive
