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
//! | 0      | per vertex   | [`FloatVertex`](super::instances::FloatVertex): position, normal, padding | `Float3`, `Float3`, `Float2` | 32 B   |
//! | 1      | per instance | [`UnitInstance`]                          | `Float4` + `Byte4`  | 20 B   |
//!
//! One builder per layout (`pipeline/compressed.rs`, `pipeline/uncompressed.rs`)
//! says what the layout brings; `pipeline/gpu.rs` builds its mesh and point
//! pipelines and owns every GPU object; `pipeline/error_view.rs` is the normal
//! error view.
//!
//! miniquad only has unsigned, unnormalized integer vertex formats, so the
//! SNORM bits arrive in the shader as floats in 0..65535; `shaders/unit.vert`
//! turns them back into two's-complement values and decodes them with the same
//! formulas as [`crate::engine::compress`], and decodes the packed instance with those of
//! [`super::instances`]. `shaders/unit_f32.vert` reads floats as they are.

mod compressed;
mod error_view;
mod gpu;
mod shaders;
#[cfg(test)]
mod tests;
mod uncompressed;

use macroquad::miniquad::{
    BufferId, BufferSource, BufferType, Comparison, CullFace, FrontFaceOrder, PassAction,
    PipelineParams, RenderPass, RenderingBackend, UniformsSource,
};
use macroquad::window::get_internal_gl;

use super::impostor::{impostor_point, point_uniform};
use super::instances::{
    InstanceCodec, NormalErrors, NormalPrecision, PackedInstance, UnitInstance, VertexLayout,
};
use super::mesh::UnitMesh;
use error_view::{precision_slot, ErrorView};
use gpu::{LayoutGpu, Owned};
pub use shaders::{UNIT_F32_VERTEX_SHADER, UNIT_FRAGMENT_SHADER, UNIT_VERTEX_SHADER};

/// Default direction from the surface toward the light, world space (not
/// normalized here; [`UnitRenderer::set_light`] normalizes it). High and from
/// the camera's default side, so the top, the flanks and the nose of a unit get
/// clearly different shades.
pub const DEFAULT_LIGHT_DIR: glam::Vec3 = glam::Vec3::new(-0.45, 1.0, 0.3);
/// Default ambient term of the Lambert lighting (0..1); diffuse is `1 - ambient`.
pub const DEFAULT_AMBIENT: f32 = 0.35;

/// Draws many copies of one unit mesh with a single instanced draw call, in
/// either [`VertexLayout`].
///
/// Owns its GPU objects (two shaders, a mesh and a point pipeline per
/// layout, the vertex buffers of both layouts and of the normal error view,
/// one instance buffer and one 32-bit point index buffer per layout, the
/// mesh's 16-bit index buffer), each listed once in one owner; the
/// macroquad window never deletes them: [`UnitRenderer::delete`] does, when
/// the mesh is switched.
pub struct UnitRenderer {
    gpu: [LayoutGpu; 2],
    owned: Owned,
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
    /// The normal error view.
    error: ErrorView,
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

/// Checks that `mesh` can be drawn: a non-zero multiple of 3 indices, all
/// in range, and streams of one length.
///
/// # Errors
/// What is wrong, in one line.
fn check_mesh(mesh: &UnitMesh) -> Result<(), String> {
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
    Ok(())
}

/// The mesh pipelines' state: back faces culled (the asset is
/// counter-clockwise outward, closed where visible) and depth-tested with
/// writes (miniquad enables the depth test only together with depth writes).
fn mesh_params() -> PipelineParams {
    PipelineParams {
        cull_face: CullFace::Back,
        front_face_order: FrontFaceOrder::CounterClockwise,
        depth_write: true,
        depth_test: Comparison::LessOrEqual,
        ..Default::default()
    }
}

/// Lets the point pipelines set their size: without it a desktop GL
/// context ignores `gl_PointSize`. WebGL has no such cap (INVALID_ENUM)
/// and always honors it.
fn enable_point_size() {
    // SAFETY: called by `UnitRenderer::new` on the macroquad main thread with
    // the window's GL context current; glEnable takes a valid cap.
    #[cfg(not(target_arch = "wasm32"))]
    unsafe {
        macroquad::miniquad::native::gl::glEnable(
            macroquad::miniquad::native::gl::GL_PROGRAM_POINT_SIZE,
        )
    };
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
        check_mesh(mesh)?;
        let q = &mesh.quantized;
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
        let params = mesh_params();
        enable_point_size();
        let capacity = max_instances.max(1);
        let mut owned = Owned::default();
        let built = (|| {
            let index_buffer = owned.immutable(
                ctx,
                BufferType::IndexBuffer,
                BufferSource::slice(&q.indices),
            );
            let (top, model_len) = impostor_point(mesh);
            let (spec, normal_streams) = compressed::spec(ctx, &mut owned, mesh, top)?;
            let compressed =
                LayoutGpu::build(ctx, &mut owned, spec, params, index_buffer, capacity);
            let spec = uncompressed::spec(ctx, &mut owned, mesh, top)?;
            let uncompressed =
                LayoutGpu::build(ctx, &mut owned, spec, params, index_buffer, capacity);
            let instances = uncompressed.instance_buffer();
            let error = ErrorView::new(ctx, &mut owned, mesh, instances, index_buffer);
            Ok::<_, String>(([compressed, uncompressed], normal_streams, error, model_len))
        })();
        let (gpu, normal_streams, error, model_len) = match built {
            Ok(b) => b,
            Err(e) => {
                owned.delete(ctx);
                return Err(e);
            }
        };
        let mut renderer = Self {
            gpu,
            owned,
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
            error,
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
    /// conventions), e.g. [`crate::window::render::camera::OrbitCamera::view_proj`].
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
        self.gpu[0].bindings.vertex_buffers[1] = self.normal_streams[precision_slot(precision)];
        self.error.set_precision(precision);
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
        self.error.on = on;
    }

    /// The mesh's normal errors at `precision` (degrees per vertex, max, mean).
    pub fn normal_errors(&self, precision: NormalPrecision) -> &NormalErrors {
        &self.error.errors[precision_slot(precision)]
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
        let error_view = self.error.on && shape == Shape::Mesh;
        let layout = if error_view {
            VertexLayout::Uncompressed
        } else {
            self.layout
        };
        // SAFETY: only called from the macroquad main thread inside the window
        // (macroquad's context exists); the borrow ends with this function and
        // no other macroquad call runs while it is alive.
        let mut gl = unsafe { get_internal_gl() };
        // Draw the geometry macroquad has queued (ground, lines) before ours.
        gl.flush();
        let ctx: &mut dyn RenderingBackend = gl.quad_context;
        self.upload(ctx, layout, instances);

        let gpu = &self.gpu[slot(layout)];
        // The compressed layout's error streams; the uncompressed layout's
        // own f32 normals are exact (error 0, its padding), all blue.
        let quantized = self.layout == VertexLayout::Compressed;
        let (bindings, index_count) = match shape {
            Shape::Mesh if error_view && quantized => (&self.error.bindings, self.index_count),
            Shape::Mesh => (&gpu.bindings, self.index_count),
            Shape::Impostor => (&gpu.impostor, instances.len()),
        };
        let index_count = i32::try_from(index_count).unwrap_or(i32::MAX);
        ctx.apply_pipeline(match shape {
            Shape::Mesh => &gpu.pipeline,
            Shape::Impostor => &gpu.points,
        });
        match pass {
            Some(p) => ctx.begin_pass(Some(p), PassAction::Nothing),
            None => ctx.begin_default_pass(PassAction::Nothing),
        }
        ctx.apply_bindings(bindings);
        self.apply_uniforms(ctx, layout, view_proj, error_view);
        match shape {
            Shape::Mesh => {
                let instance_count = i32::try_from(instances.len()).unwrap_or(i32::MAX);
                ctx.draw(0, index_count, instance_count)
            }
            // One vertex per unit, one "instance" for the impostor's vertex.
            Shape::Impostor => ctx.draw(0, index_count, 1),
        }
        ctx.end_render_pass();
    }

    /// Uploads `instances` into `layout`'s instance buffer (encoded first in
    /// the compressed layout, [`InstanceCodec::encode_all`], 8 bytes each),
    /// growing it to the next power of two when it holds fewer.
    fn upload(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        layout: VertexLayout,
        instances: &[UnitInstance],
    ) {
        let gpu = &mut self.gpu[slot(layout)];
        if let Some(grown) = gpu.reserve(ctx, &mut self.owned, layout, instances.len()) {
            if layout == VertexLayout::Uncompressed {
                self.error.set_instances(grown);
            }
        }
        let buffer = gpu.instance_buffer();
        match layout {
            VertexLayout::Compressed => {
                self.codec.encode_all(instances, &mut self.packed);
                ctx.buffer_update(buffer, BufferSource::slice(&self.packed));
            }
            VertexLayout::Uncompressed => ctx.buffer_update(buffer, BufferSource::slice(instances)),
        }
        self.uploaded += (instances.len() * layout.instance_bytes()) as u64;
    }

    /// Applies `layout`'s uniform block for `view_proj` (the error view's
    /// switch and scale in the uncompressed one).
    fn apply_uniforms(
        &self,
        ctx: &mut dyn RenderingBackend,
        layout: VertexLayout,
        view_proj: glam::Mat4,
        error_view: bool,
    ) {
        let view_proj = view_proj.to_cols_array();
        let point_px = point_uniform(self.model_len, self.px_at_1, self.codec.scale);
        match layout {
            VertexLayout::Compressed => {
                ctx.apply_uniforms(UniformsSource::table(&compressed::Uniforms {
                    view_proj,
                    mesh_center: self.mesh_center.extend(0.0).to_array(),
                    mesh_half_extent: self.mesh_half_extent.extend(0.0).to_array(),
                    light_dir: self.light,
                    instance_world: [self.codec.world, self.codec.scale, 0.0, 0.0],
                    point_px,
                }))
            }
            VertexLayout::Uncompressed => {
                let max = self.error.errors[precision_slot(self.precision)].max;
                ctx.apply_uniforms(UniformsSource::table(&uncompressed::FloatUniforms {
                    view_proj,
                    light_dir: self.light,
                    point_px,
                    error_view: [error_view as u32 as f32, max.max(1e-6), 0.0, 0.0],
                }))
            }
        }
    }

    /// Deletes every GPU object of this renderer (buffers, pipelines,
    /// shaders), each once, e.g. before replacing it with one for another
    /// mesh.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn delete(self) {
        // SAFETY: the macroquad main thread inside the window (the context
        // exists); the borrow ends with this function and no other macroquad
        // call runs while it is alive.
        let gl = unsafe { get_internal_gl() };
        self.owned.delete(gl.quad_context);
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
