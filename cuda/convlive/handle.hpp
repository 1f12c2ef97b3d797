// One owner for a resource that a C API hands out as a value (a pointer, a CUDA stream or event,
// a texture object id) and takes back through one function: the RAII types of the library
// (convlive/resources.hpp) and of the GStreamer side are this template with their release
// function, instead of a hand-written move constructor, move assignment and destructor each.
//
//   inline void closeFile(std::FILE* f) noexcept { std::fclose(f); }
//   using File = convlive::Handle<std::FILE*, &closeFile>;
//   File log(std::fopen("run.log", "w"));  // closed when `log` goes
//
// The empty value is T{} (a null pointer, a zero id); Release is called once for every other
// value the handle ends up owning, and never for the empty one. Release must not throw (it runs in
// destructors); what it returns is ignored.
#pragma once

#include <type_traits>
#include <utility>

namespace convlive {

template <class T, auto Release>
class Handle {
 public:
  Handle() noexcept = default;
  explicit Handle(T handle) noexcept : handle_(handle) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : handle_(other.release()) {}
  Handle& operator=(Handle&& other) noexcept {
    reset(other.release());  // safe on self-move: the handle is taken before the old one goes
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  T get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != T{}; }
  // Pointer handles read as the pointer they hold. (No `requires`: the kernels compile as C++17.)
  template <class U = T, std::enable_if_t<std::is_pointer_v<U>, int> = 0>
  U operator->() const noexcept {
    return handle_;
  }

  // Gives up ownership without releasing: the caller owns what is returned.
  [[nodiscard]] T release() noexcept { return std::exchange(handle_, T{}); }
  // Releases what is held (if anything) and holds `handle` instead.
  void reset(T handle = T{}) noexcept {
    if (T old = std::exchange(handle_, handle); old != T{}) Release(old);
  }

 private:
  T handle_{};
};

}  // namespace convlive
