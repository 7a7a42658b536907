//! Quantizing a triangle mesh into two compressed vertex streams.
//!
//! Stream 0: positions as SNORM16 `[x, y, z, 0]` relative to the mesh's bounding box
//! (8 bytes per vertex, the 4th component pads to 4-byte alignment).
//! Stream 1: normals as octahedral SNORM16 `[u, v]` (4 bytes per vertex).
//! Indices: `u16` triangle list.
//!
//! Source: Khronos glTF 2.0 `KHR_mesh_quantization` (SNORM16 positions with a dequantization
//! transform, octahedral normals as in Cigolle et al., JCGT 3(2), 2014).

use std::fmt;

use glam::Vec3;

use super::octahedral::{direction, oct_encode_snorm16};
use super::snorm::{decode_snorm16, encode_snorm16};

/// Dequantization transform of a position stream: `p = snorm * half_extent + center`.
///
/// World units. `center` is the middle of the axis-aligned bounding box, `half_extent` half
/// its size per axis; an axis with zero extent gets `half_extent` 1.0 so nothing divides by
/// zero (its points encode to 0 and decode to exactly `center`).
///
/// Source: glTF 2.0 `KHR_mesh_quantization` (dequantization by a node transform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionQuantization {
    /// Center of the bounding box, world units.
    pub center: Vec3,
    /// Half the size of the bounding box per axis, world units; always > 0 and finite.
    pub half_extent: Vec3,
}

impl PositionQuantization {
    /// Builds the quantization from the axis-aligned bounding box of `points`.
    ///
    /// Points with a NaN or infinite component are ignored for the box. An axis with zero
    /// extent gets `half_extent` 1.0 (its `center` is the common value); an empty slice, or
    /// one with no finite point, gives `center` 0 and `half_extent` 1 on every axis.
    /// The center is computed as `min / 2 + max / 2` so boxes near `f32::MAX` do not
    /// overflow. No allocation, no panic.
    pub fn from_points(points: &[Vec3]) -> Self {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for &p in points.iter().filter(|p| p.is_finite()) {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        if lo.x > hi.x {
            // No finite point.
            return Self {
                center: Vec3::ZERO,
                half_extent: Vec3::ONE,
            };
        }
        let center = lo * 0.5 + hi * 0.5;
        let half = hi * 0.5 - lo * 0.5;
        // A positive difference of halves can underflow to 0 only for denormal extents;
        // either way a zero axis gets 1.0.
        let half_extent = Vec3::select(half.cmpgt(Vec3::ZERO), half, Vec3::ONE);
        Self {
            center,
            half_extent,
        }
    }

    /// Encodes a position as SNORM16 `[x, y, z, 0]` (8 bytes).
    ///
    /// Per axis `encode_snorm16((p - center) / half_extent)`; points outside the box clamp to
    /// its faces, a NaN component encodes to 0 (the center), an infinite one to a face.
    /// Never emits -32768. No allocation, no panic.
    ///
    /// Source: SNORM rule of glTF 2.0 `KHR_mesh_quantization` / OpenGL 4.6 / Vulkan.
    pub fn encode(&self, p: Vec3) -> [i16; 4] {
        let n = (p - self.center) / self.half_extent;
        [
            encode_snorm16(n.x),
            encode_snorm16(n.y),
            encode_snorm16(n.z),
            0,
        ]
    }

    /// Decodes SNORM16 `[x, y, z, _]` to a position in world units.
    ///
    /// Per axis `max(c / 32767, -1) * half_extent + center`; the 4th component is ignored.
    /// -32768 decodes like -32767, to the box's lower face. This is the math the vertex
    /// shader does. No allocation, no panic.
    ///
    /// Source: glTF 2.0 `KHR_mesh_quantization`; OpenGL 4.6 / Vulkan signed normalized rule.
    pub fn decode(&self, c: [i16; 4]) -> Vec3 {
        let n = Vec3::new(
            decode_snorm16(c[0]),
            decode_snorm16(c[1]),
            decode_snorm16(c[2]),
        );
        n * self.half_extent + self.center
    }
}

/// A mesh quantized into split vertex streams plus `u16` indices.
///
/// `positions[i]` and `normals[i]` belong to vertex `i`; `indices` is a triangle list
/// (counter-clockwise = front), every index `< positions.len()`.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizedMesh {
    /// Stream 0: SNORM16 `[x, y, z, 0]` per vertex (8 bytes), decoded with `quantization`.
    pub positions: Vec<[i16; 4]>,
    /// Stream 1: octahedral SNORM16 `[u, v]` per vertex (4 bytes), see
    /// [`oct_decode_snorm16`](super::octahedral::oct_decode_snorm16).
    pub normals: Vec<[i16; 2]>,
    /// Triangle list, 3 indices per triangle.
    pub indices: Vec<u16>,
    /// The transform that turns `positions` back into world units.
    pub quantization: PositionQuantization,
}

/// Why [`quantize_mesh`] rejected a mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeshError {
    /// `positions` and `normals` have different lengths.
    LengthMismatch {
        /// Number of positions.
        positions: usize,
        /// Number of normals.
        normals: usize,
    },
    /// The mesh has no vertices or no indices.
    Empty {
        /// Number of vertices.
        vertices: usize,
        /// Number of indices.
        indices: usize,
    },
    /// More vertices than `u16` indices can address (65,536).
    TooManyVertices {
        /// Number of vertices.
        vertices: usize,
    },
    /// The index count is not a multiple of 3 (the indices are a triangle list).
    IndexCountNotMultipleOf3 {
        /// Number of indices.
        indices: usize,
    },
    /// An index refers to a vertex that does not exist.
    IndexOutOfRange {
        /// The offending index value.
        index: u32,
        /// Its position in the index slice.
        at: usize,
        /// Number of vertices.
        vertices: usize,
    },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MeshError::LengthMismatch { positions, normals } => write!(
                f,
                "positions/normals length mismatch: {positions} positions but {normals} normals"
            ),
            MeshError::Empty { vertices, indices } => write!(
                f,
                "empty mesh: {vertices} vertices and {indices} indices (need at least one triangle)"
            ),
            MeshError::TooManyVertices { vertices } => write!(
                f,
                "mesh has {vertices} vertices, more than 65,536 (the limit of u16 indices)"
            ),
            MeshError::IndexCountNotMultipleOf3 { indices } => write!(
                f,
                "index count {indices} is not a multiple of 3 (indices must be a triangle list)"
            ),
            MeshError::IndexOutOfRange {
                index,
                at,
                vertices,
            } => write!(
                f,
                "index {index} (at position {at}) is out of range for {vertices} vertices"
            ),
        }
    }
}

impl std::error::Error for MeshError {}

/// Largest vertex count that `u16` indices can address.
const MAX_VERTICES: usize = u16::MAX as usize + 1;

/// Quantizes a mesh: SNORM16 positions in its bounding box, octahedral SNORM16 normals,
/// `u16` indices.
///
/// `positions` and `normals` are per vertex (world units; normals need not be unit length,
/// zero or non-finite normals take the +Z fallback of
/// [`oct_encode`](super::octahedral::oct_encode)); `indices` is a triangle list.
/// Checks, in this order: lengths equal ([`MeshError::LengthMismatch`]), at least one vertex
/// and one index ([`MeshError::Empty`]), at most 65,536 vertices
/// ([`MeshError::TooManyVertices`]), index count a multiple of 3
/// ([`MeshError::IndexCountNotMultipleOf3`]), every index in range (the first offending
/// one, [`MeshError::IndexOutOfRange`]). Non-finite positions are ignored for the box and
/// encode as in [`PositionQuantization::encode`].
/// Allocates the three output vectors (12 bytes per vertex + 2 per index). No panic.
///
/// Source: glTF 2.0 `KHR_mesh_quantization`; Cigolle et al., JCGT 3(2), 2014.
pub fn quantize_mesh(
    positions: &[Vec3],
    normals: &[Vec3],
    indices: &[u32],
) -> Result<QuantizedMesh, MeshError> {
    if positions.len() != normals.len() {
        return Err(MeshError::LengthMismatch {
            positions: positions.len(),
            normals: normals.len(),
        });
    }
    if positions.is_empty() || indices.is_empty() {
        return Err(MeshError::Empty {
            vertices: positions.len(),
            indices: indices.len(),
        });
    }
    if positions.len() > MAX_VERTICES {
        return Err(MeshError::TooManyVertices {
            vertices: positions.len(),
        });
    }
    if !indices.len().is_multiple_of(3) {
        return Err(MeshError::IndexCountNotMultipleOf3 {
            indices: indices.len(),
        });
    }
    if let Some((at, &index)) = indices
        .iter()
        .enumerate()
        .find(|&(_, &i)| i as usize >= positions.len())
    {
        return Err(MeshError::IndexOutOfRange {
            index,
            at,
            vertices: positions.len(),
        });
    }

    let quantization = PositionQuantization::from_points(positions);
    Ok(QuantizedMesh {
        positions: positions.iter().map(|&p| quantization.encode(p)).collect(),
        normals: normals.iter().map(|&n| oct_encode_snorm16(n)).collect(),
        // Every index is < positions.len() <= 65,536, so it fits in u16.
        indices: indices.iter().map(|&i| i as u16).collect(),
        quantization,
    })
}

/// Un-indexes a triangle list so every triangle has its own 3 vertices carrying its face
/// normal (a faceted, low-poly look).
///
/// Returns `(positions, normals, indices)`: triangle `t` becomes vertices `3t, 3t+1, 3t+2`
/// (same order as the input corners) and `indices == [0, 1, 2, ..., 3T-1]`, ready for
/// [`quantize_mesh`]. The face normal is the unit `(b - a) x (c - a)` (right-handed, so
/// counter-clockwise is the front); each edge is scaled by its largest component first, so
/// tiny and huge triangles work. Degenerate triangles (zero area, non-finite corners, or
/// edges that overflow) get the fallback normal +Z, the same rule as
/// [`oct_encode`](super::octahedral::oct_encode); no NaN is produced.
/// Triangles with an index `>= positions.len()` are skipped, and a trailing incomplete
/// triangle (index count not a multiple of 3) is ignored. Allocates the three outputs
/// (3 vertices per kept triangle). No panic.
pub fn flat_normals(positions: &[Vec3], indices: &[u32]) -> (Vec<Vec3>, Vec<Vec3>, Vec<u32>) {
    let triangles = indices.len() / 3;
    let mut out_positions = Vec::with_capacity(triangles * 3);
    let mut out_normals = Vec::with_capacity(triangles * 3);
    for tri in indices.chunks_exact(3) {
        let corner = |i: u32| positions.get(i as usize).copied();
        let (Some(a), Some(b), Some(c)) = (corner(tri[0]), corner(tri[1]), corner(tri[2])) else {
            continue;
        };
        let normal = face_normal(a, b, c);
        out_positions.extend_from_slice(&[a, b, c]);
        out_normals.extend_from_slice(&[normal; 3]);
    }
    let out_indices = (0..out_positions.len() as u32).collect();
    (out_positions, out_normals, out_indices)
}

/// Unit normal of triangle (a, b, c), counter-clockwise = front; +Z if degenerate.
fn face_normal(a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let (Some(e1), Some(e2)) = (direction(b - a), direction(c - a)) else {
        return Vec3::Z;
    };
    match direction(e1.cross(e2)) {
        Some(n) => n.normalize(),
        None => Vec3::Z,
    }
}

/// Bytes per vertex of an f32 position and normal: 3 f32 + 3 f32 = 24 (the
/// window's uncompressed layout pads each vertex to 32 bytes).
///
/// Bytes, to compare with [`bytes_per_vertex_quantized`]. No allocation, no panic.
pub const fn bytes_per_vertex_f32() -> usize {
    2 * std::mem::size_of::<[f32; 3]>()
}

/// Bytes per vertex of the quantized streams: `[i16; 4]` position + `[i16; 2]` normal = 12.
///
/// Bytes, the sum of stream 0 and stream 1 of [`QuantizedMesh`]. No allocation, no panic.
pub const fn bytes_per_vertex_quantized() -> usize {
    std::mem::size_of::<[i16; 4]>() + std::mem::size_of::<[i16; 2]>()
}
