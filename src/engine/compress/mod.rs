//! Vertex compression: SNORM16/SNORM8 quantization, octahedral normals, and quantizing a
//! mesh into split vertex streams.
//!
//! - [`snorm`]: signed normalized fixed point, encode
//!   `clamp(round(v * (2^(B-1) - 1)), -(2^(B-1) - 1), 2^(B-1) - 1)`, decode
//!   `max(c / (2^(B-1) - 1), -1)` (OpenGL 4.6 / Vulkan conversion rule, glTF 2.0
//!   `KHR_mesh_quantization`).
//! - [`octahedral`]: unit vectors as two components on the folded octahedron, fold axis Z,
//!   with a sign that is +1 for ±0 (Cigolle et al., "A Survey of Efficient Representations
//!   for Independent Unit Vectors", JCGT 3(2), 2014).
//! - [`mesh`]: stream 0 = SNORM16 positions `[x, y, z, 0]` in the bounding box (8 bytes),
//!   stream 1 = octahedral SNORM16 normals (4 bytes), `u16` indices.
//!
//! Everything here is plain safe Rust, headless, and never panics on any input (NaN,
//! infinity, huge or denormal values): every function documents what it does instead.

pub mod mesh;
pub mod octahedral;
pub mod snorm;

pub use mesh::{
    bytes_per_vertex_f32, bytes_per_vertex_quantized, flat_normals, quantize_mesh, MeshError,
    PositionQuantization, QuantizedMesh,
};
pub use octahedral::{
    oct_decode, oct_decode_snorm16, oct_decode_snorm8, oct_encode, oct_encode_snorm16,
    oct_encode_snorm8, sign_not_zero,
};
pub use snorm::{
    decode_snorm16, decode_snorm8, encode_snorm16, encode_snorm8, SNORM16_MAX, SNORM8_MAX,
};
