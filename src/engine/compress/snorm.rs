//! SNORM16 and SNORM8: signed normalized fixed-point quantization of values in [-1, 1].
//!
//! Encode: `clamp(round(v * (2^(B-1) - 1)), -(2^(B-1) - 1), 2^(B-1) - 1)`.
//! Decode: `max(c / (2^(B-1) - 1), -1)`.
//!
//! Sources: the OpenGL 4.6 core specification, section 2.3.5.1 "Conversion from
//! Normalized Fixed-Point to Floating-Point" and the Vulkan specification,
//! "Fixed-Point Data Conversions" (signed normalized: `f = max(c / (2^(b-1) - 1), -1.0)`);
//! the Khronos glTF 2.0 extension `KHR_mesh_quantization`, which uses the same rule
//! for normalized signed vertex attributes.
//!
//! The encoders never emit the most negative code (-32768, -128), so every code they
//! produce has a symmetric partner and 0.0 is exact. The decoders still map that code to
//! -1.0 (the clamp), because a GPU does the same and data from elsewhere may contain it.

/// Largest SNORM16 code as a float, `2^15 - 1`; the scale between [-1, 1] and the code.
pub const SNORM16_MAX: f32 = 32767.0;

/// Largest SNORM8 code as a float, `2^7 - 1`; the scale between [-1, 1] and the code.
pub const SNORM8_MAX: f32 = 127.0;

/// Encodes a value in [-1, 1] as a SNORM16 code.
///
/// `clamp(round(v * 32767), -32767, 32767)`; rounding is half away from zero. Values
/// outside [-1, 1] (including ±infinity) clamp to ±32767; NaN encodes to 0. Never emits
/// -32768. No allocation, no panic.
///
/// Source: OpenGL 4.6 section 2.3.5.2 / Vulkan "Fixed-Point Data Conversions"
/// (float to signed normalized), glTF 2.0 `KHR_mesh_quantization`.
///
/// ```
/// use spatial_query_lab::engine::compress::snorm::{decode_snorm16, encode_snorm16};
/// assert_eq!(encode_snorm16(1.0), 32767);
/// assert_eq!(encode_snorm16(-2.0), -32767); // clamped, never -32768
/// assert_eq!(decode_snorm16(-32768), -1.0); // the extra code decodes to -1
/// assert!((decode_snorm16(encode_snorm16(0.3)) - 0.3).abs() <= 0.5 / 32767.0);
/// ```
pub fn encode_snorm16(v: f32) -> i16 {
    encode(v, SNORM16_MAX) as i16
}

/// Decodes a SNORM16 code to a value in [-1, 1].
///
/// `max(c / 32767, -1)`: -32768 and -32767 both decode to exactly -1.0, 32767 to exactly
/// 1.0, 0 to 0.0. No allocation, no panic.
///
/// Source: OpenGL 4.6 section 2.3.5.1 / Vulkan "Fixed-Point Data Conversions"
/// (`max(c / (2^(b-1) - 1), -1)`), glTF 2.0 `KHR_mesh_quantization`.
pub fn decode_snorm16(c: i16) -> f32 {
    (c as f32 / SNORM16_MAX).max(-1.0)
}

/// Encodes a value in [-1, 1] as a SNORM8 code.
///
/// `clamp(round(v * 127), -127, 127)`; rounding is half away from zero. Values outside
/// [-1, 1] (including ±infinity) clamp to ±127; NaN encodes to 0. Never emits -128.
/// No allocation, no panic.
///
/// Source: OpenGL 4.6 section 2.3.5.2 / Vulkan "Fixed-Point Data Conversions",
/// glTF 2.0 `KHR_mesh_quantization`.
pub fn encode_snorm8(v: f32) -> i8 {
    encode(v, SNORM8_MAX) as i8
}

/// Decodes a SNORM8 code to a value in [-1, 1].
///
/// `max(c / 127, -1)`: -128 and -127 both decode to exactly -1.0, 127 to exactly 1.0.
/// No allocation, no panic.
///
/// Source: OpenGL 4.6 section 2.3.5.1 / Vulkan "Fixed-Point Data Conversions"
/// (`max(c / (2^(b-1) - 1), -1)`), glTF 2.0 `KHR_mesh_quantization`.
pub fn decode_snorm8(c: i8) -> f32 {
    (c as f32 / SNORM8_MAX).max(-1.0)
}

/// Shared encoder: the code as an integral f32 in [-max, max]; NaN gives 0.
fn encode(v: f32, max: f32) -> f32 {
    if v.is_nan() {
        return 0.0;
    }
    // Not NaN here, so clamp is total; ±infinity clamps to ±max.
    (v * max).round().clamp(-max, max)
}
