// The kinds of source a SourceSpec names, and how each describes itself.
#include <algorithm>
#include <cctype>

#include "convlive/source.hpp"
#include "source_messages.hpp"

namespace convlive {
namespace {

bool hasScheme(const std::string& s) {
  const auto colon = s.find("://");
  return colon != std::string::npos && colon > 0 && std::all_of(s.begin(), s.begin() + long(colon), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
         });
}

SourceSpec ofKind(SourceSpec::Kind kind, std::string location) {
  SourceSpec s;
  s.kind = kind;
  s.location = std::move(location);
  return s;
}

}  // namespace

SourceSpec SourceSpec::testPattern(std::string pattern, int w, int h, int fps) {
  SourceSpec s;
  s.kind = Kind::Pattern;
  s.pattern = std::move(pattern);
  s.width = w;
  s.height = h;
  s.fps = fps;
  return s;
}
SourceSpec SourceSpec::file(std::string path) { return ofKind(Kind::File, std::move(path)); }
SourceSpec SourceSpec::uri(std::string uri) { return ofKind(Kind::Uri, std::move(uri)); }
SourceSpec SourceSpec::camera(std::string device) { return ofKind(Kind::Camera, std::move(device)); }
SourceSpec SourceSpec::launch(std::string line) { return ofKind(Kind::Launch, std::move(line)); }
SourceSpec SourceSpec::input(std::string pathOrUri) {
  return hasScheme(pathOrUri) ? uri(std::move(pathOrUri)) : file(std::move(pathOrUri));
}

std::string SourceSpec::describe() const {
  switch (kind) {
    case Kind::Pattern:
      return "test pattern " + quoted(pattern) + " " + std::to_string(width) + "x" + std::to_string(height) + " at " +
             std::to_string(fps) + " fps";
    case Kind::File:
      return "file " + quoted(location);
    case Kind::Uri:
      return "URI " + quoted(location);
    case Kind::Camera:
      return "camera " + quoted(location.empty() ? "(first)" : location);
    case Kind::Launch:
      return "launch line " + quoted(location);
  }
  return "source";
}

}  // namespace convlive
