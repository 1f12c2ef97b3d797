#version 330 core
// The filtered frame, or in split view the original left of the divider and the filtered frame
// right of it, with the divider drawn as a 2-pixel line. Alpha is not shown.
uniform sampler2D u_filtered;
uniform sampler2D u_original;
uniform float u_divider;  // framebuffer x of the divider; negative: no split
in vec2 v_uv;
out vec4 o_color;

void main() {
  bool split = u_divider >= 0.0;
  vec3 c = (split && gl_FragCoord.x < u_divider) ? texture(u_original, v_uv).rgb : texture(u_filtered, v_uv).rgb;
  if (split && abs(gl_FragCoord.x - u_divider) < 1.0) c = vec3(1.0, 0.8, 0.2);
  o_color = vec4(c, 1.0);
}
