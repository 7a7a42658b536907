//! The instanced unit pipeline: one draw call for every unit drawn as a mesh
//! (and one for the impostor points), in one of two vertex layouts
//! ([`VertexLayout`]), switchable live.
//!
//! `compressed` (the default):
//!
//! | buffer | step         | content                                   | format   | stride |
//! |--------|--------------|-------------------------------------------|----------|--------|
//! | 0      | per vertex   | position, SNORM16 `[i16; 4]`              | `Short4` | 8 B    |
//! | 1      | per vertex   | normal, octahedral `[i16; 2]`             | `Short2` | 4 B    |
//! | 2      | per instance | [`PackedInstance`] `[u16; 4]`             | `Short4` | 8 B    |
//!
//! `uncompressed` (as a naive engine lays it out):
//!
//! | buffer | step         | content                                   | format              | stride |
//! |--------|--------------|-------------------------------------------|---------------------|--------|
//! | 0      | per vertex   | [`FloatVertex`]: position, normal, padding | `Float3`, `Float3`, `Float2` | 32 B   |
//! | 1      | per instance | [`UnitInstance`]                          | `Float4` + `Byte4`  | 20 B   |
//!
//! miniquad only has unsigned, unnormalized integer vertex formats, so the
//! SNORM bits arrive in the shader as floats in 0..65535; `shaders/unit.vert`
//! turns them back into two's-complement values and decodes them with the same
//! formulas as [`crate::compress`], and decodes the packed instance with those of
//! [`super::instances`]. `shaders/unit_f32.vert` reads floats as they are.

use macroquad::miniquad::{Bindings, PassAction, RenderPass};
use macroquad::miniquad::{
    BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Comparison, CullFace,
    FrontFaceOrder, Pipeline, PipelineParams, PrimitiveType, RenderingBackend, ShaderId,
    ShaderMeta, ShaderSource, UniformBlockLayout, UniformDesc, UniformType, UniformsSource,
    VertexAttribute, VertexFormat, VertexStep,
};
use macroquad::window::get_internal_gl;

use super::impostor::{impostor_point, point_uniform};
use super::instances::{
    normal_errors, FloatVertex, InstanceCodec, NormalErrors, NormalPrecision, PackedInstance,
    VertexLayout,
};
use super::mesh::UnitMesh;

/// GLSL `#version 100` vertex shader of the compressed layout (`shaders/unit.vert`).
pub const UNIT_VERTEX_SHADER: &str = include_str!("../../shaders/unit.vert");
/// GLSL `#version 100` vertex shader of the uncompressed layout (`shaders/unit_f32.vert`).
pub const UNIT_F32_VERTEX_SHADER: &str = include_str!("../../shaders/unit_f32.vert");
/// GLSL `#version 100` fragment shader source of both layouts (`shaders/unit.frag`).
pub const UNIT_FRAGMENT_SHADER: &str = include_str!("../../shaders/unit.frag");

/// Default direction from the surface toward the light, world space (not
/// normalized here; [`UnitRenderer::set_light`] normalizes it). High and from
/// the camera's default side, so the top, the flanks and the nose of a unit get
/// clearly different shades.
pub const DEFAULT_LIGHT_DIR: glam::Vec3 = glam::Vec3::new(-0.45, 1.0, 0.3);
/// Default ambient term of the Lambert lighting (0..1); diffuse is `1 - ambient`.
pub const DEFAULT_AMBIENT: f32 = 0.35;

/// One unit as the CPU describes it, and the per-instance stream of the
/// uncompressed layout, 20 bytes. The compressed layout encodes it into a
/// [`PackedInstance`] ([`InstanceCodec`]).
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

/// Uniform block of the compressed shader, in `ShaderMeta` order, tightly
/// packed (miniquad uploads uniforms one by one from this memory; no std140
/// padding).
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
    /// x: world edge of the packed positions, y: base model scale.
    instance_world: [f32; 4],
    /// x: impostor point pixels per unit of scale at depth 1.
    point_px: [f32; 4],
}

/// Uniform block of the uncompressed shader.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct FloatUniforms {
    /// Column-major view-projection matrix.
    view_proj: [f32; 16],
    /// Direction toward the light (xyz, unit length), w = ambient.
    light_dir: [f32; 4],
    /// x: impostor point pixels per unit of scale at depth 1.
    point_px: [f32; 4],
    /// x: 1 in the normal error view, y: degrees shown full red.
    error_view: [f32; 4],
}

fn shader_meta(layout: VertexLayout) -> ShaderMeta {
    let mut uniforms = vec![UniformDesc::new("view_proj", UniformType::Mat4)];
    if layout == VertexLayout::Compressed {
        uniforms.push(UniformDesc::new("mesh_center", UniformType::Float4));
        uniforms.push(UniformDesc::new("mesh_half_extent", UniformType::Float4));
    }
    uniforms.push(UniformDesc::new("light_dir", UniformType::Float4));
    if layout == VertexLayout::Compressed {
        uniforms.push(UniformDesc::new("instance_world", UniformType::Float4));
    }
    uniforms.push(UniformDesc::new("point_px", UniformType::Float4));
    if layout == VertexLayout::Uncompressed {
        uniforms.push(UniformDesc::new("error_view", UniformType::Float4));
    }
    ShaderMeta {
        images: vec![],
        uniforms: UniformBlockLayout { uniforms },
    }
}

/// The GPU objects of one vertex layout. The instance buffer is the last
/// vertex buffer of `bindings` and of `impostor` (the same buffer).
struct LayoutGpu {
    pipeline: Pipeline,
    /// The same shader and streams drawing points (the impostors).
    points: Pipeline,
    bindings: Bindings,
    /// The impostor point's vertex streams in this layout, the point
    /// indices (`0..capacity`) and the instance buffer.
    impostor: Bindings,
    /// Instances the instance buffer holds without growing.
    capacity: usize,
}

/// `0..n` as 32-bit indices: the impostor points are drawn without
/// instancing, one vertex per unit (the instance stream stepped per
/// vertex, the impostor's position and normal read once as instance 0), so
/// a software rasterizer shades them in full SIMD batches instead of one
/// vertex per instance.
fn point_indices(n: usize) -> Vec<u32> {
    (0..n as u32).collect()
}

/// Draws many copies of one unit mesh with a single instanced draw call, in
/// either [`VertexLayout`].
///
/// Owns its GPU objects (two shaders, a mesh and a point pipeline per
/// layout, the vertex buffers of both layouts and of the normal error view,
/// one instance buffer and one 32-bit point index buffer per layout, the
/// mesh's 16-bit index buffer); the macroquad window never deletes them:
/// [`UnitRenderer::delete`] does, when the mesh is switched.
pub struct UnitRenderer {
    gpu: [LayoutGpu; 2],
    layout: VertexLayout,
    index_count: usize,
    vertex_count: usize,
    mesh_center: glam::Vec3,
    mesh_half_extent: glam::Vec3,
    light: [f32; 4],
    codec: InstanceCodec,
    /// Scratch of the compressed layout's instance encoding.
    packed: Vec<PackedInstance>,
    /// Instance bytes uploaded since [`UnitRenderer::take_uploaded_bytes`].
    uploaded: u64,
    /// Longest side of the mesh, model units.
    model_len: f32,
    /// Pixels per world unit at depth 1 of the current view (impostor size).
    px_at_1: f32,
    /// The compressed layout's normal streams, by [`NormalPrecision`] (16, 8 bit).
    normal_streams: [BufferId; 2],
    precision: NormalPrecision,
    /// The normal error view's f32 streams by precision: exact positions,
    /// decoded normals, the error (degrees) in the first padding float.
    error_streams: [BufferId; 2],
    /// The mesh bindings of the error view: an error stream and the
    /// uncompressed instance buffer.
    error_bindings: Bindings,
    /// The mesh's normal errors by precision.
    errors: [NormalErrors; 2],
    /// Whether meshes are drawn in the normal error view.
    error_view: bool,
    /// The two shader programs (compressed, uncompressed).
    shaders: Vec<ShaderId>,
}

fn precision_slot(p: NormalPrecision) -> usize {
    match p {
        NormalPrecision::Oct16 => 0,
        NormalPrecision::Oct8 => 1,
    }
}

/// What one draw call draws per instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The unit mesh.
    Mesh,
    /// The impostor: one point (a square of about the unit's projected
    /// size) at the top of the mesh's bounding box, lit and colored like
    /// the mesh's top (1 vertex instead of the mesh's).
    Impostor,
}

fn slot(layout: VertexLayout) -> usize {
    match layout {
        VertexLayout::Compressed => 0,
        VertexLayout::Uncompressed => 1,
    }
}

impl UnitRenderer {
    /// Uploads `mesh` in both layouts and compiles both shaders; draws in
    /// [`VertexLayout::Compressed`] until [`UnitRenderer::set_layout`].
    ///
    /// `max_instances` sizes each layout's instance buffer (at least one
    /// instance: 8 bytes each compressed, 20 uncompressed);
    /// [`draw`](Self::draw) grows it by recreation when needed, never per
    /// frame otherwise. Must be called inside the macroquad window (after
    /// the window opened).
    ///
    /// # Errors
    /// A shader compile or link log, an empty or non-triangle mesh, streams
    /// of different lengths, or a GL context without instancing (a GL 2
    /// context).
    ///
    /// # Panics
    /// If called outside a running macroquad window (macroquad's context
    /// asserts it exists).
    pub fn new(mesh: &UnitMesh, max_instances: usize) -> Result<Self, String> {
        let q = &mesh.quantized;
        if q.indices.is_empty() || !q.indices.len().is_multiple_of(3) {
            return Err(format!(
                "unit mesh has {} indices, expected a non-zero multiple of 3",
                q.indices.len()
            ));
        }
        if q.positions.len() != q.normals.len() || q.positions.len() != mesh.exact.len() {
            return Err(format!(
                "unit mesh has {} positions, {} normals and {} exact vertices",
                q.positions.len(),
                q.normals.len(),
                mesh.exact.len()
            ));
        }
        if let Some(&bad) = q.indices.iter().find(|&&i| i as usize >= q.positions.len()) {
            return Err(format!(
                "unit mesh index {bad} is out of range ({} vertices)",
                q.positions.len()
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
        let params = PipelineParams {
            // The asset is counter-clockwise outward, closed where visible.
            cull_face: CullFace::Back,
            front_face_order: FrontFaceOrder::CounterClockwise,
            // miniquad enables the depth test only together with depth writes.
            depth_write: true,
            depth_test: Comparison::LessOrEqual,
            ..Default::default()
        };
        let capacity = max_instances.max(1);
        let index_buffer = ctx.new_buffer(
            BufferType::IndexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&q.indices),
        );
        let (top, model_len) = impostor_point(mesh);
        let point_params = PipelineParams {
            primitive_type: PrimitiveType::Points,
            ..params
        };
        // SAFETY: the macroquad main thread with the window's GL context
        // current (checked above through `gl`); glEnable takes a valid cap.
        // Without it a desktop GL context ignores gl_PointSize. WebGL has no
        // such cap (INVALID_ENUM) and always honors gl_PointSize.
        #[cfg(not(target_arch = "wasm32"))]
        unsafe {
            macroquad::miniquad::native::gl::glEnable(
                macroquad::miniquad::native::gl::GL_PROGRAM_POINT_SIZE,
            )
        };
        let per_instance = |stride: usize| BufferLayout {
            stride: stride as i32,
            step_func: VertexStep::PerInstance,
            step_rate: 1,
        };
        let per_vertex = |stride: usize| BufferLayout {
            stride: stride as i32,
            ..Default::default()
        };

        // Compressed: split SNORM16 streams and packed instances.
        let shader = ctx
            .new_shader(
                ShaderSource::Glsl {
                    vertex: UNIT_VERTEX_SHADER,
                    fragment: UNIT_FRAGMENT_SHADER,
                },
                shader_meta(VertexLayout::Compressed),
            )
            .map_err(|e| format!("unit shader (compressed): {e}"))?;
        let mut shaders = vec![shader];
        let streams = VertexLayout::Compressed.vertex_stream_bytes();
        let buffers = [
            per_vertex(streams[0]),
            per_vertex(streams[1]),
            per_instance(VertexLayout::Compressed.instance_bytes()),
        ];
        let attributes = [
            VertexAttribute::with_buffer("in_position", VertexFormat::Short4, 0),
            VertexAttribute::with_buffer("in_normal", VertexFormat::Short2, 1),
            VertexAttribute::with_buffer("in_packed", VertexFormat::Short4, 2),
        ];
        let pipeline = ctx.new_pipeline(&buffers, &attributes, shader, params);
        let point_buffers = [
            per_instance(streams[0]),
            per_instance(streams[1]),
            per_vertex(VertexLayout::Compressed.instance_bytes()),
        ];
        let points = ctx.new_pipeline(&point_buffers, &attributes, shader, point_params);
        let positions = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&q.positions),
        );
        let normals = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&q.normals),
        );
        let instances = new_instance_buffer(ctx, VertexLayout::Compressed, capacity);
        let up = crate::compress::octahedral::oct_encode_snorm16(glam::Vec3::Y);
        let quad_positions = [q.quantization.encode(top)];
        let quad_normals = [up];
        let compressed = LayoutGpu {
            pipeline,
            points,
            bindings: Bindings {
                vertex_buffers: vec![positions, normals, instances],
                index_buffer,
                images: vec![],
            },
            impostor: Bindings {
                vertex_buffers: vec![
                    ctx.new_buffer(
                        BufferType::VertexBuffer,
                        BufferUsage::Immutable,
                        BufferSource::slice(&quad_positions),
                    ),
                    ctx.new_buffer(
                        BufferType::VertexBuffer,
                        BufferUsage::Immutable,
                        BufferSource::slice(&quad_normals),
                    ),
                    instances,
                ],
                index_buffer: new_point_index(ctx, capacity),
                images: vec![],
            },
            capacity,
        };

        // Uncompressed: one interleaved f32 stream and f32 instances.
        let shader = ctx
            .new_shader(
                ShaderSource::Glsl {
                    vertex: UNIT_F32_VERTEX_SHADER,
                    fragment: UNIT_FRAGMENT_SHADER,
                },
                shader_meta(VertexLayout::Uncompressed),
            )
            .map_err(|e| format!("unit shader (uncompressed): {e}"))?;
        shaders.push(shader);
        let buffers = [
            per_vertex(std::mem::size_of::<FloatVertex>()),
            per_instance(VertexLayout::Uncompressed.instance_bytes()),
        ];
        let attributes = [
            VertexAttribute::with_buffer("in_position", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("in_normal", VertexFormat::Float3, 0),
            // Read only in the normal error view (x: the error); keeps the 32-byte stride explicit.
            VertexAttribute::with_buffer("in_pad", VertexFormat::Float2, 0),
            VertexAttribute::with_buffer("in_instance", VertexFormat::Float4, 1),
            VertexAttribute::with_buffer("in_color", VertexFormat::Byte4, 1),
        ];
        let pipeline = ctx.new_pipeline(&buffers, &attributes, shader, params);
        let point_buffers = [
            per_instance(std::mem::size_of::<FloatVertex>()),
            per_vertex(VertexLayout::Uncompressed.instance_bytes()),
        ];
        let points = ctx.new_pipeline(&point_buffers, &attributes, shader, point_params);
        let vertices = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&mesh.exact),
        );
        let instances = new_instance_buffer(ctx, VertexLayout::Uncompressed, capacity);
        let quad_vertices = [FloatVertex {
            position: top.to_array(),
            normal: [0.0, 1.0, 0.0],
            pad: [0.0; 2],
        }];
        let uncompressed = LayoutGpu {
            pipeline,
            points,
            bindings: Bindings {
                vertex_buffers: vec![vertices, instances],
                index_buffer,
                images: vec![],
            },
            impostor: Bindings {
                vertex_buffers: vec![
                    ctx.new_buffer(
                        BufferType::VertexBuffer,
                        BufferUsage::Immutable,
                        BufferSource::slice(&quad_vertices),
                    ),
                    instances,
                ],
                index_buffer: new_point_index(ctx, capacity),
                images: vec![],
            },
            capacity,
        };

        let exact_normals: Vec<glam::Vec3> = mesh
            .exact
            .iter()
            .map(|v| glam::Vec3::from_array(v.normal))
            .collect();
        let codes8: Vec<[i16; 2]> = exact_normals
            .iter()
            .map(|&n| NormalPrecision::Oct8.encode(n))
            .collect();
        let normals8 = ctx.new_buffer(
            BufferType::VertexBuffer,
            BufferUsage::Immutable,
            BufferSource::slice(&codes8),
        );
        let errors = NormalPrecision::ALL.map(|p| normal_errors(&exact_normals, p));
        let error_streams = NormalPrecision::ALL.map(|p| {
            let e = &errors[precision_slot(p)];
            let vertices: Vec<FloatVertex> = mesh
                .exact
                .iter()
                .zip(&e.per_vertex)
                .map(|(v, &deg)| FloatVertex {
                    position: v.position,
                    normal: crate::compress::octahedral::oct_decode_snorm16(
                        p.encode(glam::Vec3::from_array(v.normal)),
                    )
                    .to_array(),
                    pad: [deg, 0.0],
                })
                .collect();
            ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&vertices),
            )
        });
        let error_bindings = Bindings {
            vertex_buffers: vec![error_streams[0], uncompressed.bindings.vertex_buffers[1]],
            index_buffer: uncompressed.bindings.index_buffer,
            images: vec![],
        };
        let normal_streams = [compressed.bindings.vertex_buffers[1], normals8];
        let mut renderer = Self {
            gpu: [compressed, uncompressed],
            layout: VertexLayout::Compressed,
            index_count: q.indices.len(),
            vertex_count: q.positions.len(),
            mesh_center: q.quantization.center,
            mesh_half_extent: q.quantization.half_extent,
            light: [0.0; 4],
            codec: InstanceCodec {
                world: 1.0,
                scale: 1.0,
            },
            packed: Vec::new(),
            uploaded: 0,
            model_len,
            px_at_1: 0.0,
            normal_streams,
            precision: NormalPrecision::Oct16,
            error_streams,
            error_bindings,
            errors,
            error_view: false,
            shaders,
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

    /// The layout the next draws use.
    pub fn layout(&self) -> VertexLayout {
        self.layout
    }

    /// Switches the layout of the next draws (both are uploaded; nothing is
    /// allocated).
    pub fn set_layout(&mut self, layout: VertexLayout) {
        self.layout = layout;
    }

    /// Sets how the compressed layout packs instances: positions relative to
    /// a world of edge `world` (world units) and `scale` as the base model
    /// scale ([`InstanceCodec`]). Call when either changes, before drawing.
    pub fn set_instance_codec(&mut self, world: f32, scale: f32) {
        self.codec = InstanceCodec { world, scale };
    }

    /// Draws every instance of `instances` with one instanced draw call, into
    /// the default framebuffer, depth-tested against what macroquad drew so far.
    ///
    /// `view_proj` maps world to clip space (column-major, OpenGL clip
    /// conventions), e.g. [`crate::render::camera::OrbitCamera::view_proj`].
    /// Flushes macroquad's queued geometry first so the order of drawing is
    /// kept. In the compressed layout the instances are encoded first
    /// ([`InstanceCodec::encode_all`], 8 bytes each). Uploads them with
    /// `buffer_update`; if there are more than the buffer holds, the buffer
    /// is recreated with the next power of two instances. Draws nothing for
    /// an empty slice.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn draw(&mut self, view_proj: glam::Mat4, instances: &[UnitInstance]) {
        self.draw_into(None, view_proj, instances);
    }

    /// Sets the pixels per world unit at depth 1 of the view being drawn
    /// ([`super::lod::Lod::pixels_at_depth_1`]): impostor points are drawn
    /// [`super::impostor::POINT_SIDE`] times the projected longest side of
    /// the unit, in whole pixels by coverage ([`super::impostor::point_side`]).
    pub fn set_pixels_at_depth_1(&mut self, px: f32) {
        self.px_at_1 = if px.is_finite() { px.max(0.0) } else { 0.0 };
    }

    /// Sets the precision of the compressed layout's normals (both streams
    /// are uploaded; this only switches which one is bound).
    pub fn set_normal_precision(&mut self, precision: NormalPrecision) {
        self.precision = precision;
        let k = precision_slot(precision);
        self.gpu[0].bindings.vertex_buffers[1] = self.normal_streams[k];
        self.error_bindings.vertex_buffers[0] = self.error_streams[k];
    }

    /// The normal precision of the compressed layout.
    pub fn normal_precision(&self) -> NormalPrecision {
        self.precision
    }

    /// Draws meshes colored by the angular error of each vertex's quantized
    /// normal at the current precision (blue none, red the mesh's maximum),
    /// through the f32 pipeline; in the uncompressed layout the normals are
    /// exact, so every face is blue. Impostors are unchanged.
    pub fn set_error_view(&mut self, on: bool) {
        self.error_view = on;
    }

    /// The mesh's normal errors at `precision` (degrees per vertex, max, mean).
    pub fn normal_errors(&self, precision: NormalPrecision) -> &NormalErrors {
        &self.errors[precision_slot(precision)]
    }

    /// The longest side of the unit mesh, model units (for [`super::lod::Lod`]).
    pub fn model_len(&self) -> f32 {
        self.model_len
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
        self.draw_shape(pass, view_proj, instances, Shape::Mesh);
    }

    /// [`draw_into`](Self::draw_into) with every instance drawn as `shape`:
    /// the mesh, or the impostor point (same instance stream, same shader,
    /// 1 vertex instead of the mesh's; [`super::impostor`]).
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn draw_shape(
        &mut self,
        pass: Option<RenderPass>,
        view_proj: glam::Mat4,
        instances: &[UnitInstance],
        shape: Shape,
    ) {
        if instances.is_empty() {
            return;
        }
        // The error view draws meshes with f32 streams that carry the error.
        let error_view = self.error_view && shape == Shape::Mesh;
        let layout = if error_view {
            VertexLayout::Uncompressed
        } else {
            self.layout
        };
        if layout == VertexLayout::Compressed {
            self.codec.encode_all(instances, &mut self.packed);
        }
        // SAFETY: only called from the macroquad main thread inside the window
        // (macroquad's context exists); the borrow ends with this function and
        // no other macroquad call runs while it is alive.
        let mut gl = unsafe { get_internal_gl() };
        // Draw the geometry macroquad has queued (ground, lines) before ours.
        gl.flush();
        let ctx: &mut dyn RenderingBackend = gl.quad_context;

        let gpu = &mut self.gpu[slot(layout)];
        let last = gpu.bindings.vertex_buffers.len() - 1;
        if instances.len() > gpu.capacity {
            let capacity = instances.len().next_power_of_two();
            ctx.delete_buffer(gpu.bindings.vertex_buffers[last]);
            let grown = new_instance_buffer(ctx, layout, capacity);
            gpu.bindings.vertex_buffers[last] = grown;
            let quad_last = gpu.impostor.vertex_buffers.len() - 1;
            gpu.impostor.vertex_buffers[quad_last] = grown;
            ctx.delete_buffer(gpu.impostor.index_buffer);
            gpu.impostor.index_buffer = new_point_index(ctx, capacity);
            gpu.capacity = capacity;
            if layout == VertexLayout::Uncompressed {
                self.error_bindings.vertex_buffers[1] = grown;
            }
        }
        let buffer = gpu.bindings.vertex_buffers[last];
        match layout {
            VertexLayout::Compressed => {
                ctx.buffer_update(buffer, BufferSource::slice(&self.packed));
            }
            VertexLayout::Uncompressed => ctx.buffer_update(buffer, BufferSource::slice(instances)),
        }
        self.uploaded += (instances.len() * layout.instance_bytes()) as u64;

        let instance_count = i32::try_from(instances.len()).unwrap_or(i32::MAX);
        // The compressed layout's error streams; the uncompressed layout's
        // own f32 normals are exact (error 0, its padding), all blue.
        let quantized = self.layout == VertexLayout::Compressed;
        let (bindings, index_count) = match shape {
            Shape::Mesh if error_view && quantized => (&self.error_bindings, self.index_count),
            Shape::Mesh => (&gpu.bindings, self.index_count),
            Shape::Impostor => (&gpu.impostor, instances.len()),
        };
        let index_count = i32::try_from(index_count).unwrap_or(i32::MAX);
        let view_proj = view_proj.to_cols_array();
        let point_px = point_uniform(self.model_len, self.px_at_1, self.codec.scale);

        ctx.apply_pipeline(match shape {
            Shape::Mesh => &gpu.pipeline,
            Shape::Impostor => &gpu.points,
        });
        match pass {
            Some(p) => ctx.begin_pass(Some(p), PassAction::Nothing),
            None => ctx.begin_default_pass(PassAction::Nothing),
        }
        ctx.apply_bindings(bindings);
        match layout {
            VertexLayout::Compressed => ctx.apply_uniforms(UniformsSource::table(&Uniforms {
                view_proj,
                mesh_center: self.mesh_center.extend(0.0).to_array(),
                mesh_half_extent: self.mesh_half_extent.extend(0.0).to_array(),
                light_dir: self.light,
                instance_world: [self.codec.world, self.codec.scale, 0.0, 0.0],
                point_px,
            })),
            VertexLayout::Uncompressed => {
                ctx.apply_uniforms(UniformsSource::table(&FloatUniforms {
                    view_proj,
                    light_dir: self.light,
                    point_px,
                    error_view: [
                        error_view as u32 as f32,
                        self.errors[precision_slot(self.precision)].max.max(1e-6),
                        0.0,
                        0.0,
                    ],
                }))
            }
        }
        match shape {
            Shape::Mesh => ctx.draw(0, index_count, instance_count),
            // One vertex per unit, one "instance" for the impostor's vertex.
            Shape::Impostor => ctx.draw(0, index_count, 1),
        }
        ctx.end_render_pass();
    }

    /// Deletes every GPU object of this renderer (buffers, pipelines,
    /// shaders), e.g. before replacing it with one for another mesh.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn delete(self) {
        // SAFETY: the macroquad main thread inside the window (the context
        // exists); the borrow ends with this function and no other macroquad
        // call runs while it is alive.
        let gl = unsafe { get_internal_gl() };
        let ctx: &mut dyn RenderingBackend = gl.quad_context;
        let mut buffers: Vec<BufferId> = Vec::new();
        let all = self
            .gpu
            .iter()
            .flat_map(|g| [&g.bindings, &g.impostor])
            .chain([&self.error_bindings]);
        for b in all {
            for &id in b.vertex_buffers.iter().chain([&b.index_buffer]) {
                if !buffers.contains(&id) {
                    buffers.push(id);
                }
            }
        }
        for id in self.normal_streams.into_iter().chain(self.error_streams) {
            if !buffers.contains(&id) {
                buffers.push(id);
            }
        }
        for id in buffers {
            ctx.delete_buffer(id);
        }
        for g in &self.gpu {
            ctx.delete_pipeline(g.pipeline);
            ctx.delete_pipeline(g.points);
        }
        for &s in &self.shaders {
            ctx.delete_shader(s);
        }
    }

    /// Instance bytes uploaded by the draws since the last call (then 0).
    pub fn take_uploaded_bytes(&mut self) -> u64 {
        std::mem::take(&mut self.uploaded)
    }

    /// Number of vertices in the mesh streams (3 per triangle for a flat-shaded
    /// mesh; a smooth one shares them).
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Number of 16-bit indices drawn per instance (3 per triangle).
    pub fn index_count(&self) -> usize {
        self.index_count
    }

    /// Number of instances the current layout's instance buffer holds
    /// without growing.
    pub fn instance_capacity(&self) -> usize {
        self.gpu[slot(self.layout)].capacity
    }

    /// GPU bytes of the mesh in the current layout: its per-vertex streams
    /// plus the index buffer.
    pub fn mesh_bytes(&self) -> usize {
        self.vertex_count * self.layout.vertex_bytes()
            + self.index_count * std::mem::size_of::<u16>()
    }
}

fn new_point_index(ctx: &mut dyn RenderingBackend, capacity: usize) -> BufferId {
    ctx.new_buffer(
        BufferType::IndexBuffer,
        BufferUsage::Immutable,
        BufferSource::slice(&point_indices(capacity)),
    )
}

fn new_instance_buffer(
    ctx: &mut dyn RenderingBackend,
    layout: VertexLayout,
    capacity: usize,
) -> BufferId {
    let source = match layout {
        VertexLayout::Compressed => BufferSource::empty::<PackedInstance>(capacity),
        VertexLayout::Uncompressed => BufferSource::empty::<UnitInstance>(capacity),
    };
    ctx.new_buffer(BufferType::VertexBuffer, BufferUsage::Stream, source)
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
        assert_eq!(super::super::instances::ENLARGED_SCALE, 1.5);
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
            let meta = shader_meta(layout);
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
}
