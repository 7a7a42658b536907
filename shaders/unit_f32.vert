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
// pipeline's size; ignored when drawing triangles); y: 1 / the world cell of
// dither_threshold, world units.
uniform vec4 point_px;
// x > 0.5: color by normal error (in_pad.x) instead of in_color, full red at y degrees.
uniform vec4 error_view;

varying vec3 v_color;

// Heading h turns model +X to world (cos h, 0, sin h) (see unit.vert).
vec3 rotate_heading(vec3 m, float c, float s) {
    return vec3(c * m.x - s * m.z, m.y, s * m.x + c * m.z);
}

// Impostor point side in whole pixels (src/render/impostor.rs, whose tests
// check these lines). GL 2.1 rounds a non-sprite point's size to whole
// pixels, so a continuous size jumped from 1 to 2 pixels along one line of
// depth; WebGL draws sprites instead. Each unit is drawn floor(size) or one
// more pixels wide, the larger with the probability that makes the mean area
// size^2, chosen by a threshold fixed per world cell: no seam on either.
float mod289(float x) { return x - floor(x * (1.0 / 289.0)) * 289.0; }
float permute289(float x) { return mod289((34.0 * x + 10.0) * x); }

// A threshold in [0, 1) fixed for the world cell of p (world units) of side
// 1 / point_px.y, spread evenly over the cells.
float dither_threshold(vec2 p) {
    vec2 c = floor(p * point_px.y);
    return permute289(mod289(permute289(mod289(c.x)) + mod289(c.y))) / 289.0;
}

// s = max(size, 1), n = floor(s): n + 1 when threshold < (s^2 - n^2) / (2n + 1).
float point_side(float size, float threshold) {
    float s = max(size, 1.0);
    float n = floor(s);
    float p = (s * s - n * n) / (2.0 * n + 1.0);
    return n + (1.0 - step(p, threshold));
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
    vec2 pos = in_instance.xy;
    float scale = in_instance.w;
    gl_PointSize = point_side(point_px.x * scale / gl_Position.w, dither_threshold(pos));
}
