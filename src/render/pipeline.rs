//! The instanced unit pipeline: one draw call for every unit, from three
//! vertex streams.
//!
//! | buffer | step         | content                         | format          | stride |
//! |--------|--------------|---------------------------------|-----------------|--------|
//! | 0      | per vertex   | position, SNORM16 `[i16; 4]`    | `Short4`        | 8 B    |
//! | 1      | per vertex   | normal, octahedral `[i16; 2]`   | `Short2`        | 4 B    |
//! | 2      | per instance | [`UnitInstance`]                | `Float4`+`Byte4`| 20 B   |
//!
//! miniquad only has unsigned, unnormalized integer vertex formats, so the
//! SNORM bits arrive in the shader as floats in 0..65535; `shaders/unit.vert`
//! turns them back into two's-complement values and decodes them with the same
//! formulas as [`crate::compress`].

use macroquad::miniquad::{Bindings, PassAction, RenderPass};
use macroquad::miniquad::{
    BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison, CullFace,
    FrontFaceOrder, Pipeline, PipelineParams, RenderingBackend, ShaderMeta, ShaderSource,
    UniformBlockLayout, UniformDesc, UniformType, UniformsSource, VertexAttribute, VertexFormat,
    VertexStep,
};
use macroquad::window::get_internal_gl;

use crate::compress::mesh::QuantizedMesh;

/// GLSL `#version 100` vertex shader source (`shaders/unit.vert`).
pub const UNIT_VERTEX_SHADER: &str = include_str!("../../shaders/unit.vert");
/// GLSL `#version 100` fragment shader source (`shaders/unit.frag`).
pub const UNIT_FRAGMENT_SHADER: &str = include_str!("../../shaders/unit.frag");

/// Default direction from the surface toward the light, world space (not
/// normalized here; [`UnitRenderer::set_light`] normalizes it). High and from
/// the camera's default side, so the top, the flanks and the nose of a unit get
/// clearly different shades.
pub const DEFAULT_LIGHT_DIR: glam::Vec3 = glam::Vec3::new(-0.45, 1.0, 0.3);
/// Default ambient term of the Lambert lighting (0..1); diffuse is `1 - ambient`.
pub const DEFAULT_AMBIENT: f32 = 0.35;

/// One unit as the GPU sees it: the per-instance stream (buffer 2), 20 bytes.
///
/// Layout (`#[repr(C)]`, no padding): `x, z, heading, scale` as four `f32`
/// (attribute `in_instance`, `Float4`), then `color` as four `u8`
/// (attribute `in_color`, `Byte4`, 0..255, divided by 255 in the shader).
///
/// - `x`, `z`: position on the ground plane, world units; the unit stands on y = 0.
/// - `heading`: radians; the model's +X axis points to world `(cos h, 0, sin h)`,
///   so `heading = atan2(vz, vx)` faces the velocity `(vx, vz)`.
/// - `scale`: uniform model scale (the model is about 1.6 units long at 1.0).
/// - `color`: RGBA, alpha is ignored (units are opaque).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct UnitInstance {
    /// World x, world units.
    pub x: f32,
    /// World z, world units.
    pub z: f32,
    /// Facing angle in radians: model +X maps to world `(cos h, 0, sin h)`.
    pub heading: f32,
    /// Uniform scale factor of the model.
    pub scale: f32,
    /// RGBA color, 0..255; alpha is ignored.
    pub color: [u8; 4],
}

const _: () = assert!(std::mem::size_of::<UnitInstance>() == 20);

/// Uniform block of the unit shader, in `ShaderMeta` order, tightly packed
/// (miniquad uploads uniforms one by one from this memory; no std140 padding).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Uniforms {
    /// Column-major view-projection matrix.
    view_proj: [f32; 16],
    /// Dequantization center (xyz), w unused.
    mesh_center: [f32; 4],
    /// Dequantization half extent (xyz), w unused.
    mesh_half_extent: [f32; 4],
    /// Direction toward the light (xyz, unit length), w = ambient.
    light_dir: [f32; 4],
}

fn shader_meta() -> ShaderMeta {
    ShaderMeta {
        images: vec![],
        uniforms: UniformBlockLayout {
            uniforms: vec![
                UniformDesc::new("view_proj", UniformType::Mat4),
                UniformDesc::new("mesh_center", UniformType::Float4),
                UniformDesc::new("mesh_half_extent", UniformType::Float4),
                UniformDesc::new("light_dir", UniformType::Float4),
            ],
        },
    }
}

/// Bytes per element of each stream: position per vertex, normal per vertex,
/// instance per instance.
const STREAM_BYTES: [usize; 3] = [
    std::mem::size_of::<[i16; 4]>(),
    std::mem::size_of::<[i16; 2]>(),
    std::mem::size_of::<UnitInstance>(),
];

/// Draws many copies of one quantized mesh with a single instanced draw call.
///
/// Owns its GPU objects (shader, pipeline, three vertex buffers, one 16-bit
/// index buffer); they live as long as the macroquad window, which never
/// deletes them, so the renderer is meant to be created once.
pub struct UnitRenderer {
    pipeline: Pipeline,
    bindings: Bindings,
    index_count: usize,
    vertex_count: usize,
    instance_capacity: usize,
    mesh_center: glam::Vec3,
    mesh_half_extent: glam::Vec3,
    light: [f32; 4],
}

impl UnitRenderer {
    /// Uploads `mesh` and compiles the unit shader.
    ///
    /// `max_instances` sizes the instance buffer (`max_instances * 20` bytes,
    /// at least one instance); [`draw`](Self::draw) grows it when needed.
    /// Must be called inside the macroquad window (after the window opened).
    ///
    /// # Errors
    /// The shader compile or link log, an empty or non-triangle mesh, or a GL
    /// context without instancing (a GL 2 context).
    ///
    /// # Panics
    /// If called outside a running macroquad window (macroquad's context
    /// asserts it exists).
    pub fn new(mesh: &QuantizedMesh, max_instances: usize) -> Result<Self, String> {
        if mesh.indices.is_empty() || !mesh.indices.len().is_multiple_of(3) {
            return Err(format!(
                "unit mesh has {} indices, expected a non-zero multiple of 3",
                mesh.indices.len()
            ));
        }
        if mesh.positions.len() != mesh.normals.len() {
            return Err(format!(
                "unit mesh has {} positions but {} normals",
                mesh.positions.len(),
                mesh.normals.len()
            ));
        }
        if let Some(&bad) = mesh
            .indices
            .iter()
            .find(|&&i| i as usize >= mesh.positions.len())
        {
            return Err(format!(
                "unit mesh index {bad} is out of range ({} vertices)",
                mesh.positions.len()
            ));
        }

        // SAFETY: only called from the macroquad main thread inside the window
        // (macroquad's context exists); the borrow ends with this function and
        // no other macroquad call runs while it is alive.
        let gl = unsafe { get_internal_gl() };
        let ctx: &mut dyn RenderingBackend = gl.quad_context;

        if !ctx.info().features.instancing {
            return Err(format!(
                "instanced drawing is not supported by this OpenGL context ({})",
                ctx.info().gl_version_string
            ));
        }

        let shader = ctx
            .new_shader(
                ShaderSource::Glsl {
                    vertex: UNIT_VERTEX_SHADER,
                    fragment: UNIT_FRAGMENT_SHADER,
                },
                shader_meta(),
            )
            .map_err(|e| format!("unit shader: {e}"))?;

        let pipeline = ctx.new_pipeline(
            &[
                BufferLayout {
                    stride: STREAM_BYTES[0] as i32,
                    ..Default::default()
                },
                BufferLayout {
                    stride: STREAM_BYTES[1] as i32,
                    ..Default::default()
                },
                BufferLayout {
                    stride: STREAM_BYTES[2] as i32,
                    step_func: VertexStep::PerInstance,
                    step_rate: 1,
                },
            ],
            &[
                VertexAttribute::with_buffer("in_position", VertexFormat::Short4, 0),
                VertexAttribute::with_buffer("in_normal", VertexFormat::Short2, 1),
                VertexAttribute::with_buffer("in_instance", VertexFormat::Float4, 2),
                VertexAttribute::with_buffer("in_color", VertexFormat::Byte4, 2),
            ],
            shader,
            PipelineParams {
                // The asset is counter-clockwise outward, closed where visible.
                cull_face: CullFace::Back,
                front_face_order: FrontFaceOrder::CounterClockwise,
                // miniquad enables the depth test only together with depth writes.
                depth_write: true,
                depth_test: Comparison::LessOrEqual,
                ..Default::default()
            },
        );

        let positions = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&mesh.positions),
        );
        let normals = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&mesh.normals),
        );
        let instance_capacity = max_instances.max(1);
        let instances = new_instance_buffer(ctx, instance_capacity);
        let index_buffer = ctx.new_buffer(
            BufferType::IndexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&mesh.indices),
        );

        let mut renderer = Self {
            pipeline,
            bindings: Bindings {
                vertex_buffers: vec![positions, normals, instances],
                index_buffer,
                images: vec![],
            },
            index_count: mesh.indices.len(),
            vertex_count: mesh.positions.len(),
            instance_capacity,
            mesh_center: mesh.quantization.center,
            mesh_half_extent: mesh.quantization.half_extent,
            light: [0.0; 4],
        };
        renderer.set_light(DEFAULT_LIGHT_DIR, DEFAULT_AMBIENT);
        Ok(renderer)
    }

    /// Sets the fixed light: `toward_light` is the world-space direction from a
    /// surface toward the light (normalized here; a zero or non-finite vector
    /// keeps the default), `ambient` is clamped to 0..1. Shading is
    /// `color * (ambient + (1 - ambient) * max(dot(n, L), 0))`.
    pub fn set_light(&mut self, toward_light: glam::Vec3, ambient: f32) {
        let dir = toward_light
            .try_normalize()
            .unwrap_or_else(|| DEFAULT_LIGHT_DIR.normalize());
        let ambient = if ambient.is_finite() {
            ambient.clamp(0.0, 1.0)
        } else {
            DEFAULT_AMBIENT
        };
        self.light = [dir.x, dir.y, dir.z, ambient];
    }

    /// Draws every instance of `instances` with one instanced draw call, into
    /// the default framebuffer, depth-tested against what macroquad drew so far.
    ///
    /// `view_proj` maps world to clip space (column-major, OpenGL clip
    /// conventions), e.g. [`crate::render::camera::OrbitCamera::view_proj`].
    /// Flushes macroquad's queued geometry first so the order of drawing is
    /// kept. Uploads the instances with `buffer_update`; if there are more than
    /// the buffer holds, the buffer is recreated with the next power of two
    /// instances. Draws nothing for an empty slice.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn draw(&mut self, view_proj: glam::Mat4, instances: &[UnitInstance]) {
        self.draw_into(None, view_proj, instances);
    }

    /// [`draw`](Self::draw) into the render pass `pass` (an offscreen target
    /// with a depth attachment) instead of the default framebuffer, on top of
    /// what it holds. `None` is the default framebuffer.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn draw_into(
        &mut self,
        pass: Option<RenderPass>,
        view_proj: glam::Mat4,
        instances: &[UnitInstance],
    ) {
        if instances.is_empty() {
            return;
        }
        // SAFETY: only called from the macroquad main thread inside the window
        // (macroquad's context exists); the borrow ends with this function and
        // no other macroquad call runs while it is alive.
        let mut gl = unsafe { get_internal_gl() };
        // Draw the geometry macroquad has queued (ground, lines) before ours.
        gl.flush();
        let ctx: &mut dyn RenderingBackend = gl.quad_context;

        if instances.len() > self.instance_capacity {
            let capacity = instances.len().next_power_of_two();
            ctx.delete_buffer(self.bindings.vertex_buffers[2]);
            self.bindings.vertex_buffers[2] = new_instance_buffer(ctx, capacity);
            self.instance_capacity = capacity;
        }
        ctx.buffer_update(
            self.bindings.vertex_buffers[2],
            BufferSource::slice(instances),
        );

        let uniforms = Uniforms {
            view_proj: view_proj.to_cols_array(),
            mesh_center: self.mesh_center.extend(0.0).to_array(),
            mesh_half_extent: self.mesh_half_extent.extend(0.0).to_array(),
            light_dir: self.light,
        };

        let instance_count = i32::try_from(instances.len()).unwrap_or(i32::MAX);
        let index_count = i32::try_from(self.index_count).unwrap_or(i32::MAX);

        ctx.apply_pipeline(&self.pipeline);
        match pass {
            Some(p) => ctx.begin_pass(Some(p), PassAction::Nothing),
            None => ctx.begin_default_pass(PassAction::Nothing),
        }
        ctx.apply_bindings(&self.bindings);
        ctx.apply_uniforms(UniformsSource::table(&uniforms));
        ctx.draw(0, index_count, instance_count);
        ctx.end_render_pass();
    }

    /// Bytes per element of each stream: `[position per vertex, normal per
    /// vertex, instance per instance]` = `[8, 4, 20]`.
    pub fn vertex_stream_bytes(&self) -> [usize; 3] {
        STREAM_BYTES
    }

    /// Number of vertices in the mesh streams (un-indexed, flat shaded).
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Number of 16-bit indices drawn per instance (3 per triangle).
    pub fn index_count(&self) -> usize {
        self.index_count
    }

    /// Number of instances the instance buffer currently holds without growing.
    pub fn instance_capacity(&self) -> usize {
        self.instance_capacity
    }

    /// GPU bytes of the mesh: both per-vertex streams plus the index buffer.
    pub fn mesh_bytes(&self) -> usize {
        self.vertex_count * (STREAM_BYTES[0] + STREAM_BYTES[1])
            + self.index_count * std::mem::size_of::<u16>()
    }

    /// GPU bytes of the instance buffer as allocated (capacity, not use).
    pub fn instance_buffer_bytes(&self) -> usize {
        self.instance_capacity * STREAM_BYTES[2]
    }
}

fn new_instance_buffer(ctx: &mut dyn RenderingBackend, capacity: usize) -> BufferId {
    ctx.new_buffer(
        BufferType::VertexBuffer,
        BufferUsage::Stream,
        BufferSource::empty::<UnitInstance>(capacity),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::octahedral::oct_decode_snorm16;
    use crate::compress::snorm::decode_snorm16;

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
        let mesh = crate::render::mesh::load_unit_mesh().unwrap();
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
        assert_eq!(std::mem::size_of::<Uniforms>(), (16 + 4 + 4 + 4) * 4);
    }
}
