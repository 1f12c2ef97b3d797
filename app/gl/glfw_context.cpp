// A GLFW window with an OpenGL 3.3 core context, entry points loaded by GLEW.
#include <GL/glew.h>
// GLEW first: it defines the GL prototypes GLFW would otherwise pull in.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <mutex>

#include "context.hpp"

namespace convlive {
namespace {

std::mutex gErrorMutex;
std::string gLastGlfwError;

extern "C" void onGlfwError(int code, const char* text) {
  std::lock_guard lock(gErrorMutex);
  gLastGlfwError = std::string(text ? text : "unknown") + " (GLFW error " + std::to_string(code) + ")";
}

std::string lastGlfwError() {
  std::lock_guard lock(gErrorMutex);
  return gLastGlfwError.empty() ? "no reason given" : gLastGlfwError;
}

class GlfwContext final : public GlContext {
 public:
  explicit GlfwContext(const ContextOptions& o) {
    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit())
      throw GlError("cannot start GLFW: " + lastGlfwError() +
                    ". Is there a display? Without one, run headless (--offscreen) or under xvfb-run");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window_ = glfwCreateWindow(o.width, o.height, o.title.c_str(), nullptr, nullptr);
    if (!window_) {
      const std::string why = lastGlfwError();
      glfwTerminate();
      throw GlError("cannot open a window with OpenGL 3.3 core: " + why +
                    ". Update the graphics driver, or run headless (--offscreen)");
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(o.vsync ? 1 : 0);
    glewExperimental = GL_TRUE;
    const GLenum e = glewInit();
    if (e != GLEW_OK) {
      const std::string why = reinterpret_cast<const char*>(glewGetErrorString(e));
      glfwDestroyWindow(window_);
      glfwTerminate();
      throw GlError("cannot load the OpenGL entry points (GLEW: " + why + ")");
    }
    glGetError();  // GLEW may leave GL_INVALID_ENUM behind on core profiles
  }
  ~GlfwContext() override {
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  std::string description() const override { return "GLFW window, " + glDescription(); }
  bool headless() const override { return false; }
  bool shouldClose() const override { return glfwWindowShouldClose(window_); }
  void requestClose() override { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
  void pollEvents() override { glfwPollEvents(); }
  void swapBuffers() override { glfwSwapBuffers(window_); }
  void framebufferSize(int& w, int& h) const override { glfwGetFramebufferSize(window_, &w, &h); }
  bool setFullscreen(bool on) override {
    if (on == fullscreen()) return true;
    if (on) {
      GLFWmonitor* monitor = glfwGetPrimaryMonitor();
      const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
      if (!mode) return false;
      glfwGetWindowPos(window_, &savedX_, &savedY_);
      glfwGetWindowSize(window_, &savedW_, &savedH_);
      glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
      glfwSetWindowMonitor(window_, nullptr, savedX_, savedY_, savedW_, savedH_, 0);
    }
    return true;
  }
  bool fullscreen() const override { return glfwGetWindowMonitor(window_) != nullptr; }
  GLFWwindow* window() const override { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
  int savedX_ = 0, savedY_ = 0, savedW_ = 1280, savedH_ = 720;
};

}  // namespace

std::unique_ptr<GlContext> makeWindowContext(const ContextOptions& options) {
  return std::make_unique<GlfwContext>(options);
}

bool displayAvailable() {
  const char* x = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (w && *w);
}

std::string glDescription() {
  const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string(renderer ? renderer : "?") + ", OpenGL " + (version ? version : "?");
}

}  // namespace convlive
