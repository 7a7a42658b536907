//! The normal error view: the mesh drawn through the uncompressed
//! pipeline with f32 streams whose normals are the quantized ones decoded,
//! and whose first padding float is each vertex's angular error (degrees),
//! one stream per [`NormalPrecision`].

use macroquad::miniquad::{Bindings, BufferId, BufferSource, BufferType, RenderingBackend};

use super::gpu::Owned;
use crate::window::render::instances::{normal_errors, FloatVertex, NormalErrors, NormalPrecision};
use crate::window::render::mesh::UnitMesh;

/// Index of a precision in the per-precision arrays (16 bit, 8 bit).
pub(super) fn precision_slot(p: NormalPrecision) -> usize {
    match p {
        NormalPrecision::Oct16 => 0,
        NormalPrecision::Oct8 => 1,
    }
}

/// The error view's streams, bindings and the mesh's errors.
pub(super) struct ErrorView {
    /// The f32 streams by precision: exact positions, decoded normals, the
    /// error (degrees) in the first padding float.
    streams: [BufferId; 2],
    /// An error stream and the uncompressed instance buffer, over the
    /// mesh's indices.
    pub(super) bindings: Bindings,
    /// The mesh's normal errors by precision.
    pub(super) errors: [NormalErrors; 2],
    /// Whether meshes are drawn in the error view.
    pub(super) on: bool,
}

impl ErrorView {
    /// The error streams of `mesh` at every precision, bound with the
    /// uncompressed layout's `instances` over `index_buffer`; shows the
    /// 16-bit errors, off.
    pub(super) fn new(
        ctx: &mut dyn RenderingBackend,
        owned: &mut Owned,
        mesh: &UnitMesh,
        instances: BufferId,
        index_buffer: BufferId,
    ) -> ErrorView {
        let exact: Vec<glam::Vec3> = mesh
            .exact
            .iter()
            .map(|v| glam::Vec3::from_array(v.normal))
            .collect();
        let errors = NormalPrecision::ALL.map(|p| normal_errors(&exact, p));
        let streams = NormalPrecision::ALL.map(|p| {
            let e = &errors[precision_slot(p)];
            let vertices: Vec<FloatVertex> = mesh
                .exact
                .iter()
                .zip(&e.per_vertex)
                .map(|(v, &deg)| FloatVertex {
                    position: v.position,
                    normal: crate::engine::compress::octahedral::oct_decode_snorm16(
                        p.encode(glam::Vec3::from_array(v.normal)),
                    )
                    .to_array(),
                    pad: [deg, 0.0],
                })
                .collect();
            owned.immutable(
                ctx,
                BufferType::VertexBuffer,
                BufferSource::slice(&vertices),
            )
        });
        ErrorView {
            streams,
            bindings: Bindings {
                vertex_buffers: vec![streams[0], instances],
                index_buffer,
                images: vec![],
            },
            errors,
            on: false,
        }
    }

    /// Binds the error stream of `precision`.
    pub(super) fn set_precision(&mut self, precision: NormalPrecision) {
        self.bindings.vertex_buffers[0] = self.streams[precision_slot(precision)];
    }

    /// Binds the uncompressed layout's new instance buffer.
    pub(super) fn set_instances(&mut self, instances: BufferId) {
        self.bindings.vertex_buffers[1] = instances;
    }
}
