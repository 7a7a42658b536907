//! The shaders' decoding formulas against the CPU's, and the uniform
//! blocks against their structs.

use super::compressed::Uniforms;
use super::uncompressed::FloatUniforms;
use super::*;
use crate::engine::compress::octahedral::oct_decode_snorm16;
use crate::engine::compress::snorm::decode_snorm16;

/// `snorm16` of `shaders/unit.vert`, on the unsigned value miniquad passes.
fn shader_snorm16(u: f32) -> f32 {
    let step = if u >= 32768.0 { 1.0 } else { 0.0 };
    let s = u - 65536.0 * step;
    (s / 32767.0).max(-1.0)
}

/// `oct_decode` of `shaders/unit.vert`.
fn shader_oct_decode(x: f32, y: f32) -> glam::Vec3 {
    let mut v = glam::Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    if v.z < 0.0 {
        let sx = if v.x >= 0.0 { 1.0 } else { -1.0 };
        let sy = if v.y >= 0.0 { 1.0 } else { -1.0 };
        let (ax, ay) = (v.y.abs(), v.x.abs());
        v.x = (1.0 - ax) * sx;
        v.y = (1.0 - ay) * sy;
    }
    v.normalize()
}

#[test]
fn shader_snorm16_matches_cpu_decode_for_every_code() {
    for c in i16::MIN..=i16::MAX {
        let u = c as u16 as f32; // what an unsigned Short attribute delivers
        assert_eq!(shader_snorm16(u), decode_snorm16(c), "code {c}");
    }
}

#[test]
fn shader_oct_decode_matches_cpu_decode() {
    let mesh = crate::window::render::mesh::load_unit_mesh().unwrap();
    let mut codes = mesh.normals.clone();
    codes.extend([
        [0, 0],
        [32767, 0],
        [-32768, 0],
        [0, -32767],
        [20000, -20000],
    ]);
    for c in codes {
        let gpu = shader_oct_decode(
            shader_snorm16(c[0] as u16 as f32),
            shader_snorm16(c[1] as u16 as f32),
        );
        let cpu = oct_decode_snorm16(c);
        assert!(gpu.abs_diff_eq(cpu, 1e-6), "{c:?}: {gpu} vs {cpu}");
    }
}

#[test]
fn shader_source_uses_the_mirrored_formulas() {
    for needle in [
        "float s = u - 65536.0 * step(32768.0, u);",
        "return max(s / 32767.0, -1.0);",
        "vec3 v = vec3(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));",
        "v.xy = (1.0 - abs(v.yx)) * sign_not_zero(v.xy);",
        "return vec3(c * m.x - s * m.z, m.y, s * m.x + c * m.z);",
    ] {
        assert!(UNIT_VERTEX_SHADER.contains(needle), "missing: {needle}");
    }
    assert!(UNIT_FRAGMENT_SHADER.contains("precision mediump float;"));
    for needle in [
        "vec3 world = rotate_heading(in_position, c, s) * in_instance.w",
        "return vec3(c * m.x - s * m.z, m.y, s * m.x + c * m.z);",
        "vec3 base = in_color.rgb / 255.0;",
        "float t = clamp(in_pad.x / error_view.y, 0.0, 1.0);",
        "v_color = base * light;",
    ] {
        assert!(UNIT_F32_VERTEX_SHADER.contains(needle), "missing: {needle}");
    }
}

#[test]
fn shader_packed_instance_decode_is_the_codec_formula() {
    // The lines of shaders/unit.vert that decode a PackedInstance; the
    // CPU mirror is `InstanceCodec::decode`, tested in render::instances.
    for needle in [
        "vec2 pos = in_packed.xy / 65535.0 * instance_world.x;",
        "float flag = step(32768.0, in_packed.z);",
        "float heading = (in_packed.z - 32768.0 * flag) * (6.2831853071795864 / 32768.0);",
        "float scale = instance_world.y * (1.0 + 0.5 * flag);",
        "return vec3(floor(c / 2048.0) / 31.0, floor(mod(c, 2048.0) / 32.0) / 63.0, mod(c, 32.0) / 31.0);",
        "v_color = rgb565(in_packed.w) * light;",
    ] {
        assert!(UNIT_VERTEX_SHADER.contains(needle), "missing: {needle}");
    }
    assert_eq!(crate::window::render::instances::ENLARGED_SCALE, 1.5);
}

#[test]
fn heading_rotation_faces_the_velocity() {
    // The shader's rotation, applied to model +X, gives (cos h, 0, sin h).
    for (vx, vz) in [(1.0f32, 0.0f32), (0.0, 1.0), (-1.0, 0.5), (0.3, -2.0)] {
        let h = vz.atan2(vx);
        let (s, c) = h.sin_cos();
        let world = glam::Vec3::new(c * 1.0 - s * 0.0, 0.0, s * 1.0 + c * 0.0);
        let v = glam::Vec3::new(vx, 0.0, vz).normalize();
        assert!(world.abs_diff_eq(v, 1e-6), "{world} vs {v}");
    }
}

#[test]
fn instance_layout_is_20_bytes_in_order() {
    let i = UnitInstance {
        x: 1.0,
        z: 2.0,
        heading: 3.0,
        scale: 4.0,
        color: [5, 6, 7, 8],
    };
    let bytes = bytemuck::bytes_of(&i);
    assert_eq!(bytes.len(), 20);
    assert_eq!(&bytes[16..], &[5, 6, 7, 8]);
    assert_eq!(&bytes[0..4], &1.0f32.to_ne_bytes());
    assert_eq!(
        std::mem::size_of::<Uniforms>(),
        (16 + 4 + 4 + 4 + 4 + 4) * 4
    );
    assert_eq!(std::mem::size_of::<FloatUniforms>(), (16 + 4 + 4 + 4) * 4);
    for layout in VertexLayout::ALL {
        let meta = match layout {
            VertexLayout::Compressed => compressed::shader_meta(),
            VertexLayout::Uncompressed => uncompressed::shader_meta(),
        };
        let bytes: usize = meta
            .uniforms
            .uniforms
            .iter()
            .map(|u| u.uniform_type.size())
            .sum();
        let want = match layout {
            VertexLayout::Compressed => std::mem::size_of::<Uniforms>(),
            VertexLayout::Uncompressed => std::mem::size_of::<FloatUniforms>(),
        };
        assert_eq!(bytes, want, "{layout}: uniform block and struct differ");
    }
}
