// Headless OpenGL through EGL's device platform: no window system needed. Picks the device that
// CUDA can share with (EGL_NV_device_cuda) when there is one, else the first that gives a context.
#include <GL/glew.h>
// GLEW first.
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "context.hpp"

namespace convlive {
namespace {

std::string eglErrorText(EGLint e) {
  switch (e) {
    case EGL_NOT_INITIALIZED:
      return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ALLOC:
      return "EGL_BAD_ALLOC";
    case EGL_BAD_CONFIG:
      return "EGL_BAD_CONFIG";
    case EGL_BAD_MATCH:
      return "EGL_BAD_MATCH";
    case EGL_BAD_ATTRIBUTE:
      return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_DISPLAY:
      return "EGL_BAD_DISPLAY";
    default:
      return "EGL error 0x" + [&] {
        char b[16];
        std::snprintf(b, sizeof b, "%x", unsigned(e));
        return std::string(b);
      }();
  }
}

template <class F>
F eglProc(const char* name) {
  return reinterpret_cast<F>(eglGetProcAddress(name));
}

class EglContext final : public GlContext {
 public:
  explicit EglContext(const ContextOptions& o) : width_(o.width), height_(o.height) {
    auto queryDevices = eglProc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
    auto queryDeviceString = eglProc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
    auto platformDisplay = eglProc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
    if (!queryDevices || !platformDisplay)
      throw GlError(
          "EGL has no device platform (EGL_EXT_device_enumeration): install libegl-mesa0 or the "
          "NVIDIA driver's EGL");
    EGLint count = 0;
    queryDevices(0, nullptr, &count);
    std::vector<EGLDeviceEXT> devices(std::size_t(count > 0 ? count : 0));
    if (count <= 0 || !queryDevices(count, devices.data(), &count))
      throw GlError("EGL finds no device to draw on: install libegl-mesa0 (software) or the NVIDIA driver");
    // The CUDA-capable device first, so that interop can work.
    std::stable_partition(devices.begin(), devices.end(), [&](EGLDeviceEXT d) {
      const char* ext = queryDeviceString ? queryDeviceString(d, EGL_EXTENSIONS) : nullptr;
      return ext && std::string(ext).find("EGL_NV_device_cuda") != std::string::npos;
    });
    std::string why;
    for (EGLDeviceEXT d : devices) {
      if (tryDevice(platformDisplay, d, why)) return;
    }
    throw GlError("no EGL device gives an OpenGL 3.3 core context (" + why + ")");
  }
  ~EglContext() override {
    if (display_ == EGL_NO_DISPLAY) return;
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
    if (surface_ != EGL_NO_SURFACE) eglDestroySurface(display_, surface_);
    eglTerminate(display_);
  }
  std::string description() const override { return "headless EGL, " + glDescription(); }
  bool headless() const override { return true; }
  bool shouldClose() const override { return closeRequested_; }
  void requestClose() override { closeRequested_ = true; }
  void pollEvents() override {}
  void swapBuffers() override { eglSwapBuffers(display_, surface_); }
  void framebufferSize(int& w, int& h) const override {
    w = width_;
    h = height_;
  }
  bool setFullscreen(bool) override { return false; }
  bool fullscreen() const override { return false; }

 private:
  bool tryDevice(PFNEGLGETPLATFORMDISPLAYEXTPROC platformDisplay, EGLDeviceEXT device, std::string& why) {
    EGLDisplay dpy = platformDisplay(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    EGLint major = 0, minor = 0;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) {
      why = "eglInitialize: " + eglErrorText(eglGetError());
      return false;
    }
    const EGLint configAttribs[] = {
        EGL_SURFACE_TYPE,    EGL_PBUFFER_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
        EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,  EGL_NONE};
    EGLConfig config{};
    EGLint n = 0;
    if (!eglChooseConfig(dpy, configAttribs, &config, 1, &n) || n < 1) {
      why = "no RGBA8 pbuffer config";
      eglTerminate(dpy);
      return false;
    }
    const EGLint surfaceAttribs[] = {EGL_WIDTH, width_, EGL_HEIGHT, height_, EGL_NONE};
    EGLSurface surface = eglCreatePbufferSurface(dpy, config, surfaceAttribs);
    if (surface == EGL_NO_SURFACE) {
      why = "eglCreatePbufferSurface: " + eglErrorText(eglGetError());
      eglTerminate(dpy);
      return false;
    }
    eglBindAPI(EGL_OPENGL_API);
    const EGLint contextAttribs[] = {
        EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, contextAttribs);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surface, surface, ctx)) {
      why = "OpenGL 3.3 core context: " + eglErrorText(eglGetError());
      if (ctx != EGL_NO_CONTEXT) eglDestroyContext(dpy, ctx);
      eglDestroySurface(dpy, surface);
      eglTerminate(dpy);
      return false;
    }
    glewExperimental = GL_TRUE;
    // Debian's GLEW is built for GLX: under EGL it returns GLEW_ERROR_NO_GLX_DISPLAY after it has
    // loaded the core entry points, which work. Anything else is a real failure.
    const GLenum e = glewInit();
    if (e != GLEW_OK && e != GLEW_ERROR_NO_GLX_DISPLAY) {
      why = std::string("GLEW: ") + reinterpret_cast<const char*>(glewGetErrorString(e));
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(dpy, ctx);
      eglDestroySurface(dpy, surface);
      eglTerminate(dpy);
      return false;
    }
    glGetError();
    display_ = dpy;
    surface_ = surface;
    context_ = ctx;
    return true;
  }

  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLSurface surface_ = EGL_NO_SURFACE;
  EGLContext context_ = EGL_NO_CONTEXT;
  int width_, height_;
  bool closeRequested_ = false;
};

}  // namespace

std::unique_ptr<GlContext> makeHeadlessContext(const ContextOptions& options) {
  return std::make_unique<EglContext>(options);
}

}  // namespace convlive
