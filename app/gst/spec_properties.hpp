// The element's properties, generated from the filter model's setting table (specSettings()):
// each Setting becomes a GObject property of the same name. Int -> gint with the setting's range,
// Float -> gdouble with its range (sigma: 0 means auto), Flag -> gboolean, Choice -> a registered
// GEnum whose nicks are the choices (so gst-inspect lists them and gst-launch takes the names),
// Text -> string. The blurb is the setting's help, the default its FilterSpec default.
//
// Values cross as text in the form FilterSpec::set/get read and write, so the library validates
// them. Called from class_init (the param specs) and from set/get_property (any thread).
#pragma once

#include <glib-object.h>

#include <string>

#include "convlive/spec.hpp"

namespace convlive::gstelement {

// A property for `s`, with `flags` added to G_PARAM_READWRITE. Registers the Choice setting's enum
// type on first use.
GParamSpec* paramSpecFor(const Setting& s, GParamFlags flags);
// The property's value as FilterSpec::set reads it ("4", "1.5", "auto", "true", "sobel").
std::string textOf(const Setting& s, const GValue& value);
// Stores FilterSpec::get's text into the property's value.
void storeText(const Setting& s, const std::string& text, GValue& value);
// A library Problem worded for the element: settings named as properties, the fix as "set p=v".
std::string propertyWords(const Problem& p);

}  // namespace convlive::gstelement
