// RAII owners of GL objects. Each is non-copyable and movable; create, use and destroy them on the
// thread whose context is current, while that context lives. Include <GL/glew.h> first.
#pragma once

#include <GL/glew.h>

#include <string>
#include <utility>

namespace convlive {

template <void (*Delete)(GLuint)>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  ~GlName() {
    if (id_) Delete(id_);
  }
  GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      if (id_) Delete(id_);
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  GLuint get() const { return id_; }
  explicit operator bool() const { return id_ != 0; }

 private:
  GLuint id_ = 0;
};

void deleteTexture(GLuint id);
void deleteProgram(GLuint id);
void deleteVertexArray(GLuint id);
void deleteQuery(GLuint id);

using GlTexture = GlName<deleteTexture>;
using GlProgram = GlName<deleteProgram>;
using GlVertexArray = GlName<deleteVertexArray>;
using GlQuery = GlName<deleteQuery>;

GlTexture makeTexture();
GlVertexArray makeVertexArray();
GlQuery makeQuery();
// Compiles and links; throws GlError with the compiler's log and the shader's name.
GlProgram makeProgram(const char* name, const char* vertexSource, const char* fragmentSource);

// Throws GlError naming `what` when GL has recorded an error.
void checkGl(const char* what);

}  // namespace convlive
