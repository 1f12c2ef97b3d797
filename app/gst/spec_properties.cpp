#include "spec_properties.hpp"

#include <gst/gst.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>

#include "convlive/variants.hpp"

namespace convlive::gstelement {
namespace {

// "filter-alpha" -> "GstConvliveFilterAlpha": the enum type's name.
std::string typeNameFor(const std::string& setting) {
  std::string name = "GstConvlive";
  bool upper = true;
  for (char c : setting) {
    if (c == '-' || c == '_') {
      upper = true;
      continue;
    }
    name += upper ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name;
}

// The words gst-inspect shows beside a choice: the variant table's description for variants.
std::string choiceWords(const Setting& s, const std::string& choice) {
  if (s.name == "variant") {
    if (choice == "auto") return "auto: the fastest measured on this GPU (the CPU variant without one)";
    if (const Variant* v = findVariant(choice)) return choice + ": " + v->description;
  }
  return choice;
}

// The enum type of a Choice setting; registered once, kept for the life of the process (GLib's
// type system never unregisters a static type, so the value table is never freed).
GType enumTypeFor(const Setting& s) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const std::string typeName = typeNameFor(s.name);
  if (GType known = g_type_from_name(typeName.c_str())) return known;
  auto* values = new GEnumValue[s.choices.size() + 1]{};
  for (std::size_t i = 0; i < s.choices.size(); ++i)
    values[i] = {int(i), g_strdup(choiceWords(s, s.choices[i]).c_str()), g_strdup(s.choices[i].c_str())};
  values[s.choices.size()] = {0, nullptr, nullptr};
  return g_enum_register_static(g_intern_string(typeName.c_str()), values);
}

int choiceIndex(const Setting& s, const std::string& text) {
  const auto it = std::find(s.choices.begin(), s.choices.end(), text);
  return it == s.choices.end() ? 0 : int(it - s.choices.begin());
}

// gst-inspect prints numbers as %.*g: enough digits to read back as the float the spec keeps.
std::string numberText(double v) {
  char buf[32];
  g_ascii_formatd(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

GParamSpec* paramSpecFor(const Setting& s, GParamFlags flags) {
  const GParamFlags f = GParamFlags(G_PARAM_READWRITE | flags);
  const std::string def = s.defaultText();
  const char* name = s.name.c_str();
  const char* nick = s.label.c_str();
  switch (s.type) {
    case Setting::Type::Int:
      return g_param_spec_int(name, nick, s.help.c_str(), int(s.min), int(s.max), std::atoi(def.c_str()), f);
    case Setting::Type::Float: {
      if (s.name == "sigma") {  // 0 stands for auto, which FilterSpec writes as a word
        const std::string blurb = s.help + " (0: auto)";
        return g_param_spec_double(name, nick, blurb.c_str(), 0.0, s.max,
                                   def == "auto" ? 0.0 : g_ascii_strtod(def.c_str(), nullptr), f);
      }
      return g_param_spec_double(name, nick, s.help.c_str(), s.min, s.max, g_ascii_strtod(def.c_str(), nullptr), f);
    }
    case Setting::Type::Flag:
      return g_param_spec_boolean(name, nick, s.help.c_str(), def == "true", f);
    case Setting::Type::Choice:
      return g_param_spec_enum(name, nick, s.help.c_str(), enumTypeFor(s), choiceIndex(s, def), f);
    case Setting::Type::Text:
    default:
      return g_param_spec_string(name, nick, s.help.c_str(), def.c_str(), f);
  }
}

std::string textOf(const Setting& s, const GValue& value) {
  switch (s.type) {
    case Setting::Type::Int:
      return std::to_string(g_value_get_int(&value));
    case Setting::Type::Float: {
      const double v = g_value_get_double(&value);
      return s.name == "sigma" && v == 0.0 ? "auto" : numberText(v);
    }
    case Setting::Type::Flag:
      return g_value_get_boolean(&value) ? "true" : "false";
    case Setting::Type::Choice: {
      const int i = g_value_get_enum(&value);
      return i >= 0 && std::size_t(i) < s.choices.size() ? s.choices[std::size_t(i)] : std::to_string(i);
    }
    case Setting::Type::Text:
    default: {
      const char* t = g_value_get_string(&value);
      return t ? t : "";
    }
  }
}

void storeText(const Setting& s, const std::string& text, GValue& value) {
  switch (s.type) {
    case Setting::Type::Int:
      g_value_set_int(&value, std::atoi(text.c_str()));
      return;
    case Setting::Type::Float:
      g_value_set_double(&value, text == "auto" ? 0.0 : g_ascii_strtod(text.c_str(), nullptr));
      return;
    case Setting::Type::Flag:
      g_value_set_boolean(&value, text == "true");
      return;
    case Setting::Type::Choice:
      g_value_set_enum(&value, choiceIndex(s, text));
      return;
    case Setting::Type::Text:
    default:
      g_value_set_string(&value, text.c_str());
      return;
  }
}

std::string propertyWords(const Problem& p) {
  const Wording element{
      [](const std::string& name) { return "property '" + name + "'"; },
      [](const std::string& setting, const std::string& value) { return "set " + setting + "=" + value; }};
  return words(p, element);
}

}  // namespace convlive::gstelement
