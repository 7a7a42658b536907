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
// Padding of the f32 stream; in the normal error view, x = the angular error
// of this vertex's quantized normal, degrees.
attribute vec2 in_pad;

uniform mat4 view_proj;
// xyz: unit vector from the surface toward the light (world space);
// w: ambient term. Diffuse weight is 1 - w.
uniform vec4 light_dir;
// x: pixels of an impostor point per unit of scale at depth 1 (the point
// pipeline's size; ignored when drawing triangles).
uniform vec4 point_px;
// x > 0.5: color by normal error (in_pad.x) instead of in_color, full red at y degrees.
uniform vec4 error_view;

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
    vec3 base = in_color.rgb / 255.0;
    if (error_view.x > 0.5) {
        // Blue (no error) through green and yellow to red (error_view.y or more).
        float t = clamp(in_pad.x / error_view.y, 0.0, 1.0);
        base = t < 0.5 ? mix(vec3(0.15, 0.35, 1.0), vec3(0.2, 0.9, 0.3), t * 2.0)
                       : mix(vec3(1.0, 0.9, 0.2), vec3(1.0, 0.15, 0.1), t * 2.0 - 1.0);
    }
    v_color = base * light;

    gl_Position = view_proj * vec4(world, 1.0);
    gl_PointSize = max(1.0, point_px.x * in_instance.w / gl_Position.w);
}
