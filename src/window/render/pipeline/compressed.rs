//! The compressed vertex layout: split SNORM16 position and octahedral
//! normal streams (8 + 4 bytes per vertex) and packed instances (8 bytes),
//! drawn by `shaders/unit.vert`.

use macroquad::miniquad::{
    BufferSource, BufferType, RenderingBackend, ShaderMeta, UniformBlockLayout, UniformDesc,
    UniformType, VertexAttribute, VertexFormat,
};

use super::gpu::{LayoutSpec, Owned};
use super::shaders::{UNIT_FRAGMENT_SHADER, UNIT_VERTEX_SHADER};
use crate::window::render::instances::{NormalPrecision, VertexLayout};
use crate::window::render::mesh::UnitMesh;

/// Uniform block of the compressed shader, in [`shader_meta`] order,
/// tightly packed (miniquad uploads uniforms one by one from this memory;
/// no std140 padding).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct Uniforms {
    /// Column-major view-projection matrix.
    pub(super) view_proj: [f32; 16],
    /// Dequantization center (xyz), w unused.
    pub(super) mesh_center: [f32; 4],
    /// Dequantization half extent (xyz), w unused.
    pub(super) mesh_half_extent: [f32; 4],
    /// Direction toward the light (xyz, unit length), w = ambient.
    pub(super) light_dir: [f32; 4],
    /// x: world edge of the packed positions, y: base model scale.
    pub(super) instance_world: [f32; 4],
    /// x: impostor point pixels per unit of scale at depth 1.
    pub(super) point_px: [f32; 4],
}

/// The uniforms of [`Uniforms`], in its order.
pub(super) fn shader_meta() -> ShaderMeta {
    let uniforms = [
        ("view_proj", UniformType::Mat4),
        ("mesh_center", UniformType::Float4),
        ("mesh_half_extent", UniformType::Float4),
        ("light_dir", UniformType::Float4),
        ("instance_world", UniformType::Float4),
        ("point_px", UniformType::Float4),
    ]
    .map(|(name, kind)| UniformDesc::new(name, kind));
    ShaderMeta {
        images: vec![],
        uniforms: UniformBlockLayout {
            uniforms: uniforms.to_vec(),
        },
    }
}

/// The compressed layout of `mesh`: its shader, its position stream and
/// its 16-bit normal stream, and the impostor point at `top` (model units)
/// facing up. Also returns the 8-bit normal stream, bound instead of the
/// 16-bit one at [`NormalPrecision::Oct8`].
///
/// # Errors
/// The shader's compile or link log.
pub(super) fn spec(
    ctx: &mut dyn RenderingBackend,
    owned: &mut Owned,
    mesh: &UnitMesh,
    top: glam::Vec3,
) -> Result<(LayoutSpec, [macroquad::miniquad::BufferId; 2]), String> {
    let q = &mesh.quantized;
    let shader = owned.shader(
        ctx,
        (UNIT_VERTEX_SHADER, UNIT_FRAGMENT_SHADER),
        shader_meta(),
        "compressed",
    )?;
    let vertex = BufferType::VertexBuffer;
    let positions = owned.immutable(ctx, vertex, BufferSource::slice(&q.positions));
    let normals16 = owned.immutable(ctx, vertex, BufferSource::slice(&q.normals));
    let codes8: Vec<[i16; 2]> = mesh
        .exact
        .iter()
        .map(|v| NormalPrecision::Oct8.encode(glam::Vec3::from_array(v.normal)))
        .collect();
    let normals8 = owned.immutable(ctx, vertex, BufferSource::slice(&codes8));
    let up = crate::engine::compress::octahedral::oct_encode_snorm16(glam::Vec3::Y);
    let point = vec![
        owned.immutable(
            ctx,
            vertex,
            BufferSource::slice(&[q.quantization.encode(top)]),
        ),
        owned.immutable(ctx, vertex, BufferSource::slice(&[up])),
    ];
    let spec = LayoutSpec {
        layout: VertexLayout::Compressed,
        shader,
        strides: VertexLayout::Compressed.vertex_stream_bytes().to_vec(),
        attributes: vec![
            VertexAttribute::with_buffer("in_position", VertexFormat::Short4, 0),
            VertexAttribute::with_buffer("in_normal", VertexFormat::Short2, 1),
            VertexAttribute::with_buffer("in_packed", VertexFormat::Short4, 2),
        ],
        mesh: vec![positions, normals16],
        point,
    };
    Ok((spec, [normals16, normals8]))
}
