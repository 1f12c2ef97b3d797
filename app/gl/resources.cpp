#include "resources.hpp"

#include <cstdio>

#include "context.hpp"

namespace convlive {

void deleteTexture(GLuint id) { glDeleteTextures(1, &id); }
void deleteProgram(GLuint id) { glDeleteProgram(id); }
void deleteVertexArray(GLuint id) { glDeleteVertexArrays(1, &id); }
void deleteQuery(GLuint id) { glDeleteQueries(1, &id); }

GlTexture makeTexture() {
  GLuint id = 0;
  glGenTextures(1, &id);
  return GlTexture(id);
}

GlVertexArray makeVertexArray() {
  GLuint id = 0;
  glGenVertexArrays(1, &id);
  return GlVertexArray(id);
}

GlQuery makeQuery() {
  GLuint id = 0;
  glGenQueries(1, &id);
  return GlQuery(id);
}

namespace {

GLuint compile(const char* name, GLenum type, const char* source) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw GlError(std::string("shader ") + name + (type == GL_VERTEX_SHADER ? " (vertex)" : " (fragment)") +
                  " does not compile: " + log);
  }
  return s;
}

}  // namespace

GlProgram makeProgram(const char* name, const char* vertexSource, const char* fragmentSource) {
  const GLuint vs = compile(name, GL_VERTEX_SHADER, vertexSource);
  GLuint fs = 0;
  try {
    fs = compile(name, GL_FRAGMENT_SHADER, fragmentSource);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  GlProgram p(glCreateProgram());
  glAttachShader(p.get(), vs);
  glAttachShader(p.get(), fs);
  glLinkProgram(p.get());
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p.get(), GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(p.get(), sizeof log, nullptr, log);
    throw GlError(std::string("shader program ") + name + " does not link: " + log);
  }
  return p;
}

void checkGl(const char* what) {
  const GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%04x", e);
    throw GlError(std::string(what) + " failed (GL error " + code + ")");
  }
}

}  // namespace convlive
