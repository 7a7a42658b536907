#version 100
// Instanced unit vertex shader.
//
// The compressed layout (see src/render/pipeline.rs and src/render/instances.rs):
//   buffer 0, per vertex:   in_position = [i16; 4] SNORM16 bits (x, y, z, pad) as Short4
//   buffer 1, per vertex:   in_normal   = [i16; 2] octahedral SNORM16 bits as Short2
//   buffer 2, per instance: in_packed   = [u16; 4] PackedInstance (x, z, heading, RGB565) as Short4
// miniquad binds Short/Byte formats as unsigned and unnormalized, so the shader
// receives 0..65535 as floats and rebuilds the two's-complement value itself.

attribute vec4 in_position;
attribute vec2 in_normal;
attribute vec4 in_packed;

uniform mat4 view_proj;
// Position dequantization: model = snorm * mesh_half_extent.xyz + mesh_center.xyz.
uniform vec4 mesh_center;
uniform vec4 mesh_half_extent;
// xyz: unit vector from the surface toward the light (world space);
// w: ambient term. Diffuse weight is 1 - w.
uniform vec4 light_dir;
// x: pixels of an impostor point per unit of scale at depth 1 (the point
// pipeline's size; ignored when drawing triangles); y: 1 / the world cell of
// dither_threshold, world units.
uniform vec4 point_px;
// x: world edge L (world units), y: base model scale.
uniform vec4 instance_world;

varying vec3 v_color;

// SNORM16 decode of raw unsigned 16-bit bits: reinterpret as two's complement,
// then max(c / 32767, -1) (glTF KHR_mesh_quantization); same formula as
// compress::snorm on the CPU side.
float snorm16(float u) {
    float s = u - 65536.0 * step(32768.0, u);
    return max(s / 32767.0, -1.0);
}

// +1 for +0 and -0 as well as positive values, -1 for negative values.
vec2 sign_not_zero(vec2 t) {
    return vec2(t.x >= 0.0 ? 1.0 : -1.0, t.y >= 0.0 ? 1.0 : -1.0);
}

// Octahedral decode, lower hemisphere folded across axis Z
// (Cigolle et al. 2014, JCGT 3(2), "A Survey of Efficient Representations
// for Independent Unit Vectors").
vec3 oct_decode(vec2 e) {
    vec3 v = vec3(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if (v.z < 0.0) {
        v.xy = (1.0 - abs(v.yx)) * sign_not_zero(v.xy);
    }
    return normalize(v);
}

// Heading h turns model +X to world (cos h, 0, sin h): in the x/z plane,
// world.x = c*m.x - s*m.z and world.z = s*m.x + c*m.z. (This is a rotation by
// -h about +Y in the right-handed convention, i.e. h = atan2(vz, vx).)
vec3 rotate_heading(vec3 m, float c, float s) {
    return vec3(c * m.x - s * m.z, m.y, s * m.x + c * m.z);
}

// PackedInstance decode, the formulas of src/render/instances.rs:
// x = u / 65535 * L; heading word w: flag = step(32768, w), k = w - 32768 flag,
// h = k * 2pi / 32768, scale = base * (1 + 0.5 flag); RGB565 color c.
vec3 rgb565(float c) {
    return vec3(floor(c / 2048.0) / 31.0, floor(mod(c, 2048.0) / 32.0) / 63.0, mod(c, 32.0) / 31.0);
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
    vec3 q = vec3(snorm16(in_position.x), snorm16(in_position.y), snorm16(in_position.z));
    vec3 model = q * mesh_half_extent.xyz + mesh_center.xyz;
    vec3 n_model = oct_decode(vec2(snorm16(in_normal.x), snorm16(in_normal.y)));

    vec2 pos = in_packed.xy / 65535.0 * instance_world.x;
    float flag = step(32768.0, in_packed.z);
    float heading = (in_packed.z - 32768.0 * flag) * (6.2831853071795864 / 32768.0);
    float scale = instance_world.y * (1.0 + 0.5 * flag);

    float c = cos(heading);
    float s = sin(heading);
    vec3 world = rotate_heading(model, c, s) * scale + vec3(pos.x, 0.0, pos.y);
    // A rotation with a uniform scale keeps normals perpendicular.
    vec3 n = rotate_heading(n_model, c, s);

    float lambert = max(dot(n, light_dir.xyz), 0.0);
    float light = light_dir.w + (1.0 - light_dir.w) * lambert;
    v_color = rgb565(in_packed.w) * light;

    gl_Position = view_proj * vec4(world, 1.0);
    gl_PointSize = point_side(point_px.x * scale / gl_Position.w, dither_threshold(pos));
}
