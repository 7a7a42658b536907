//! The GPU objects of the unit pipeline: one owner of every buffer,
//! pipeline and shader ([`Owned`], so deleting them is a plain loop), and
//! the builder of one vertex layout's mesh and point pipelines from what
//! the layout brings ([`LayoutSpec`]).

use macroquad::miniquad::{
    Bindings, BufferId, BufferLayout, BufferSource, BufferType, BufferUsage, Pipeline,
    PipelineParams, PrimitiveType, RenderingBackend, ShaderId, ShaderMeta, ShaderSource,
    VertexAttribute, VertexStep,
};

use super::super::instances::{PackedInstance, UnitInstance, VertexLayout};

/// Every GPU object of a [`super::UnitRenderer`], each id exactly once:
/// shared buffers (the mesh's index buffer, an instance buffer bound by
/// the mesh and the point bindings) are created once and so listed once.
#[derive(Default)]
pub(super) struct Owned {
    buffers: Vec<BufferId>,
    pipelines: Vec<Pipeline>,
    shaders: Vec<ShaderId>,
}

impl Owned {
    /// A new immutable buffer holding `source`, owned here.
    pub(super) fn immutable(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        kind: BufferType,
        source: BufferSource<'_>,
    ) -> BufferId {
        let id = ctx.new_buffer(kind, BufferUsage::Immutable, source);
        self.buffers.push(id);
        id
    }

    /// A new stream vertex buffer of `capacity` instances of `layout`'s
    /// instance type, owned here.
    pub(super) fn instances(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        layout: VertexLayout,
        capacity: usize,
    ) -> BufferId {
        let source = match layout {
            VertexLayout::Compressed => BufferSource::empty::<PackedInstance>(capacity),
            VertexLayout::Uncompressed => BufferSource::empty::<UnitInstance>(capacity),
        };
        let id = ctx.new_buffer(BufferType::VertexBuffer, BufferUsage::Stream, source);
        self.buffers.push(id);
        id
    }

    /// A new index buffer `0..capacity` (32-bit), owned here: the impostor
    /// points are drawn without instancing, one vertex per unit (the
    /// instance stream stepped per vertex, the impostor's position and
    /// normal read once as instance 0), so a software rasterizer shades them
    /// in full SIMD batches instead of one vertex per instance.
    pub(super) fn point_indices(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        capacity: usize,
    ) -> BufferId {
        let indices: Vec<u32> = (0..capacity as u32).collect();
        self.immutable(ctx, BufferType::IndexBuffer, BufferSource::slice(&indices))
    }

    /// Deletes buffer `old` and forgets it (it was replaced by a larger one).
    pub(super) fn delete_buffer(&mut self, ctx: &mut dyn RenderingBackend, old: BufferId) {
        ctx.delete_buffer(old);
        self.buffers.retain(|&b| b != old);
    }

    /// Compiles a shader of `vertex` and `fragment` source, owned here.
    ///
    /// # Errors
    /// The compile or link log, prefixed with `name`.
    pub(super) fn shader(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        (vertex, fragment): (&str, &str),
        meta: ShaderMeta,
        name: &str,
    ) -> Result<ShaderId, String> {
        let id = ctx
            .new_shader(ShaderSource::Glsl { vertex, fragment }, meta)
            .map_err(|e| format!("unit shader ({name}): {e}"))?;
        self.shaders.push(id);
        Ok(id)
    }

    /// A new pipeline, owned here.
    pub(super) fn pipeline(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        buffers: &[BufferLayout],
        attributes: &[VertexAttribute],
        shader: ShaderId,
        params: PipelineParams,
    ) -> Pipeline {
        let id = ctx.new_pipeline(buffers, attributes, shader, params);
        self.pipelines.push(id);
        id
    }

    /// Deletes every object, each once.
    pub(super) fn delete(self, ctx: &mut dyn RenderingBackend) {
        for id in self.buffers {
            ctx.delete_buffer(id);
        }
        for id in self.pipelines {
            ctx.delete_pipeline(id);
        }
        for id in self.shaders {
            ctx.delete_shader(id);
        }
    }
}

/// What one vertex layout brings to [`LayoutGpu::build`]: its shader, the
/// strides of its per-vertex streams (the instance stream comes last), the
/// attributes over them, the mesh's streams and the impostor point's.
pub(super) struct LayoutSpec {
    /// The layout.
    pub(super) layout: VertexLayout,
    /// Its shader program.
    pub(super) shader: ShaderId,
    /// Bytes per vertex of each per-vertex stream, in buffer order.
    pub(super) strides: Vec<usize>,
    /// The vertex attributes, over the streams then the instance stream.
    pub(super) attributes: Vec<VertexAttribute>,
    /// The mesh's per-vertex streams (one per stride).
    pub(super) mesh: Vec<BufferId>,
    /// The impostor point's streams (one vertex each, one per stride).
    pub(super) point: Vec<BufferId>,
}

/// The GPU objects of one vertex layout. The instance buffer is the last
/// vertex buffer of `bindings` and of `impostor` (the same buffer).
pub(super) struct LayoutGpu {
    /// Draws the mesh, instanced.
    pub(super) pipeline: Pipeline,
    /// The same shader and streams drawing points (the impostors).
    pub(super) points: Pipeline,
    /// The mesh's streams, the instance buffer and the mesh's indices.
    pub(super) bindings: Bindings,
    /// The impostor point's vertex streams in this layout, the point
    /// indices (`0..capacity`) and the instance buffer.
    pub(super) impostor: Bindings,
    /// Instances the instance buffer holds without growing.
    pub(super) capacity: usize,
}

impl LayoutGpu {
    /// The mesh and point pipelines of `spec` with a new instance buffer
    /// of `capacity` instances and point indices to match; `index_buffer`
    /// is the mesh's. The mesh pipeline steps the streams per vertex and the
    /// instances per instance; the point pipeline the other way round.
    pub(super) fn build(
        ctx: &mut dyn RenderingBackend,
        owned: &mut Owned,
        spec: LayoutSpec,
        params: PipelineParams,
        index_buffer: BufferId,
        capacity: usize,
    ) -> LayoutGpu {
        let step = |stride: usize, step_func: VertexStep| BufferLayout {
            stride: stride as i32,
            step_func,
            step_rate: 1,
        };
        let instance_bytes = spec.layout.instance_bytes();
        let stepped = |streams: VertexStep, instances: VertexStep| -> Vec<BufferLayout> {
            spec.strides
                .iter()
                .map(|&s| step(s, streams))
                .chain([step(instance_bytes, instances)])
                .collect()
        };
        let mesh_steps = stepped(VertexStep::PerVertex, VertexStep::PerInstance);
        let point_steps = stepped(VertexStep::PerInstance, VertexStep::PerVertex);
        let point_params = PipelineParams {
            primitive_type: PrimitiveType::Points,
            ..params
        };
        let pipeline = owned.pipeline(ctx, &mesh_steps, &spec.attributes, spec.shader, params);
        let points = owned.pipeline(
            ctx,
            &point_steps,
            &spec.attributes,
            spec.shader,
            point_params,
        );
        let instances = owned.instances(ctx, spec.layout, capacity);
        let with_instances = |mut streams: Vec<BufferId>| {
            streams.push(instances);
            streams
        };
        LayoutGpu {
            pipeline,
            points,
            bindings: Bindings {
                vertex_buffers: with_instances(spec.mesh),
                index_buffer,
                images: vec![],
            },
            impostor: Bindings {
                vertex_buffers: with_instances(spec.point),
                index_buffer: owned.point_indices(ctx, capacity),
                images: vec![],
            },
            capacity,
        }
    }

    /// The instance buffer (the last vertex buffer of both bindings).
    pub(super) fn instance_buffer(&self) -> BufferId {
        *self
            .bindings
            .vertex_buffers
            .last()
            .expect("an instance stream")
    }

    /// Makes room for `n` instances: when the instance buffer holds fewer,
    /// replaces it (and the point indices) with ones for the next power of
    /// two. Returns the new instance buffer when it was replaced.
    pub(super) fn reserve(
        &mut self,
        ctx: &mut dyn RenderingBackend,
        owned: &mut Owned,
        layout: VertexLayout,
        n: usize,
    ) -> Option<BufferId> {
        if n <= self.capacity {
            return None;
        }
        let capacity = n.next_power_of_two();
        owned.delete_buffer(ctx, self.instance_buffer());
        let grown = owned.instances(ctx, layout, capacity);
        for b in [&mut self.bindings, &mut self.impostor] {
            *b.vertex_buffers.last_mut().expect("an instance stream") = grown;
        }
        owned.delete_buffer(ctx, self.impostor.index_buffer);
        self.impostor.index_buffer = owned.point_indices(ctx, capacity);
        self.capacity = capacity;
        Some(grown)
    }
}
