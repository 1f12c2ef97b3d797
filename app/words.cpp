#include "words.hpp"

#include "convlive/spec.hpp"

namespace convlive {
namespace {

std::string flag(const std::string& name) { return "--" + name; }
std::string useFlag(const std::string& setting, const std::string& value) { return "use --" + setting + " " + value; }
std::string label(const std::string& name) {
  if (const Setting* s = findSetting(name)) return s->label;
  std::string l = name;
  if (!l.empty() && l[0] >= 'a' && l[0] <= 'z') l[0] = char(l[0] - 'a' + 'A');
  return l;
}
std::string chooseWidget(const std::string& setting, const std::string& value) {
  return "choose " + value + " under " + label(setting);
}

}  // namespace

const Wording& commandLineWording() {
  static const Wording w{flag, useFlag};
  return w;
}
const Wording& panelWording() {
  static const Wording w{label, chooseWidget};
  return w;
}
std::string forCommandLine(const Problem& p) { return words(p, commandLineWording()); }
std::string forPanel(const Problem& p) { return words(p, panelWording()); }
std::string forCommandLine(const std::exception& e) {
  if (const auto* pe = dynamic_cast<const ProblemError*>(&e)) return forCommandLine(pe->problem());
  return e.what();
}
std::string forPanel(const std::exception& e) {
  if (const auto* pe = dynamic_cast<const ProblemError*>(&e)) return forPanel(pe->problem());
  return e.what();
}

}  // namespace convlive
