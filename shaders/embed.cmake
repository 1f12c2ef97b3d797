# Writes a header with each shader's source as a string, so the program runs from any directory.
# -DOUT=header -DSOURCES="a.vert|b.frag"
string(REPLACE "|" ";" SOURCES "${SOURCES}")
set(text "// Generated from shaders/ by shaders/embed.cmake: edit the .vert/.frag files.\n#pragma once\n\nnamespace convlive::shaders {\n")
foreach(path IN LISTS SOURCES)
  get_filename_component(name "${path}" NAME)
  string(MAKE_C_IDENTIFIER "${name}" id)
  file(READ "${path}" body)
  string(APPEND text "inline constexpr const char* ${id} = R\"glsl(${body})glsl\";\n")
endforeach()
string(APPEND text "}  // namespace convlive::shaders\n")
file(WRITE "${OUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
