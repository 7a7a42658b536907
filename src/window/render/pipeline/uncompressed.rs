//! The uncompressed vertex layout, as a naive engine lays it out: one
//! interleaved f32 stream ([`FloatVertex`], 32 bytes per vertex) and f32
//! instances ([`super::UnitInstance`], 20 bytes), drawn by
//! `shaders/unit_f32.vert` (which also draws the normal error view).

use macroquad::miniquad::{
    BufferSource, BufferType, RenderingBackend, ShaderMeta, UniformBlockLayout, UniformDesc,
    UniformType, VertexAttribute, VertexFormat,
};

use super::gpu::{LayoutSpec, Owned};
use super::shaders::{UNIT_F32_VERTEX_SHADER, UNIT_FRAGMENT_SHADER};
use crate::window::render::instances::{FloatVertex, VertexLayout};
use crate::window::render::mesh::UnitMesh;

/// Uniform block of the uncompressed shader, in [`shader_meta`] order.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct FloatUniforms {
    /// Column-major view-projection matrix.
    pub(super) view_proj: [f32; 16],
    /// Direction toward the light (xyz, unit length), w = ambient.
    pub(super) light_dir: [f32; 4],
    /// x: impostor point pixels per unit of scale at depth 1.
    pub(super) point_px: [f32; 4],
    /// x: 1 in the normal error view, y: degrees shown full red.
    pub(super) error_view: [f32; 4],
}

/// The uniforms of [`FloatUniforms`], in its order.
pub(super) fn shader_meta() -> ShaderMeta {
    let uniforms = [
        ("view_proj", UniformType::Mat4),
        ("light_dir", UniformType::Float4),
        ("point_px", UniformType::Float4),
        ("error_view", UniformType::Float4),
    ]
    .map(|(name, kind)| UniformDesc::new(name, kind));
    ShaderMeta {
        images: vec![],
        uniforms: UniformBlockLayout {
            uniforms: uniforms.to_vec(),
        },
    }
}

/// The attributes over one [`FloatVertex`] stream (buffer 0) and the
/// instance stream (buffer 1); the error view binds the same layout.
pub(super) fn attributes() -> Vec<VertexAttribute> {
    vec![
        VertexAttribute::with_buffer("in_position", VertexFormat::Float3, 0),
        VertexAttribute::with_buffer("in_normal", VertexFormat::Float3, 0),
        // Read only in the normal error view (x: the error); keeps the
        // 32-byte stride explicit.
        VertexAttribute::with_buffer("in_pad", VertexFormat::Float2, 0),
        VertexAttribute::with_buffer("in_instance", VertexFormat::Float4, 1),
        VertexAttribute::with_buffer("in_color", VertexFormat::Byte4, 1),
    ]
}

/// The uncompressed layout of `mesh`: its shader, its exact vertices, and
/// the impostor point at `top` (model units) facing up.
///
/// # Errors
/// The shader's compile or link log.
pub(super) fn spec(
    ctx: &mut dyn RenderingBackend,
    owned: &mut Owned,
    mesh: &UnitMesh,
    top: glam::Vec3,
) -> Result<LayoutSpec, String> {
    let shader = owned.shader(
        ctx,
        (UNIT_F32_VERTEX_SHADER, UNIT_FRAGMENT_SHADER),
        shader_meta(),
        "uncompressed",
    )?;
    let vertex = BufferType::VertexBuffer;
    let vertices = owned.immutable(ctx, vertex, BufferSource::slice(&mesh.exact));
    let point = [FloatVertex {
        position: top.to_array(),
        normal: [0.0, 1.0, 0.0],
        pad: [0.0; 2],
    }];
    Ok(LayoutSpec {
        layout: VertexLayout::Uncompressed,
        shader,
        strides: VertexLayout::Uncompressed.vertex_stream_bytes().to_vec(),
        attributes: attributes(),
        mesh: vec![vertices],
        point: vec![owned.immutable(ctx, vertex, BufferSource::slice(&point))],
    })
}
