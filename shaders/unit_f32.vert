#version 100
// Instanced unit vertex shader, uncompressed layout (see src/render/pipeline.rs):
//   buffer 0, per vertex:   in_position = model position (Float3),
//                           in_normal   = unit normal (Float3), then 8 bytes of padding
//   buffer 1, per instance: in_instance = (x, z, heading, scale) as Float4,
//                           in_color    = RGBA 0..255 as Byte4
// The same lighting and heading rotation as unit.vert, without decoding.

attribute vec3 in_position;
attribute vec3 in_normal;
attribute vec4 in_instance;
attribute vec4 in_color;

uniform mat4 view_proj;
// xyz: unit vector from the surface toward the light (world space);
// w: ambient term. Diffuse weight is 1 - w.
uniform vec4 light_dir;
// x: pixels of an impostor point per unit of scale at depth 1 (the point
// pipeline's size; ignored when drawing triangles).
uniform vec4 point_px;

varying vec3 v_color;

// Heading h turns model +X to world (cos h, 0, sin h) (see unit.vert).
vec3 rotate_heading(vec3 m, float c, float s) {
    return vec3(c * m.x - s * m.z, m.y, s * m.x + c * m.z);
}

void main() {
    float c = cos(in_instance.z);
    float s = sin(in_instance.z);
    vec3 world = rotate_heading(in_position, c, s) * in_instance.w
        + vec3(in_instance.x, 0.0, in_instance.y);
    vec3 n = rotate_heading(normalize(in_normal), c, s);

    float lambert = max(dot(n, light_dir.xyz), 0.0);
    float light = light_dir.w + (1.0 - light_dir.w) * lambert;
    v_color = in_color.rgb / 255.0 * light;

    gl_Position = view_proj * vec4(world, 1.0);
    gl_PointSize = max(1.0, point_px.x * in_instance.w / gl_Position.w);
}
