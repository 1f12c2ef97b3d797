#version 330 core
// A quad over the frame's rectangle, made from gl_VertexID (no vertex buffer).
// u_rect: the rectangle in normalised device coordinates (x0, y0, x1, y1), y0 the top edge.
uniform vec4 u_rect;
out vec2 v_uv;  // (0,0): the frame's first pixel (top-left)

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  v_uv = corner;
  gl_Position = vec4(mix(u_rect.x, u_rect.z, corner.x), mix(u_rect.y, u_rect.w, corner.y), 0.0, 1.0);
}
