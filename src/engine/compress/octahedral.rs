//! Octahedral encoding of unit vectors (normals) into two components.
//!
//! The unit sphere is projected onto the octahedron `|x| + |y| + |z| = 1`; the upper half
//! (z >= 0) is read straight off as (x, y), the lower half (z < 0) is folded outwards over
//! the diagonals, so the whole sphere covers the square [-1, 1]^2. The fold axis is Z: the
//! center (0, 0) is +Z and the four corners (±1, ±1) are all -Z.
//!
//! Source: Z. H. Cigolle, S. Donow, D. Evangelakos, M. Mara, M. McGuire, Q. Meyer,
//! "A Survey of Efficient Representations for Independent Unit Vectors",
//! Journal of Computer Graphics Techniques (JCGT) 3(2), 2014, listings 1-2 (`float32x3_to_oct`,
//! `oct_to_float32x3`) and listing 5 (`float32x3_to_octn_precise`).
//!
//! The fold uses [`sign_not_zero`], which returns +1 for both +0.0 and -0.0; a plain `sign`
//! that returns 0 for 0 would send (0, 0, -1) to (0, 0), which decodes to +Z.

use glam::{DVec3, Vec2, Vec3};

use super::snorm::{
    decode_snorm16, decode_snorm8, encode_snorm16, encode_snorm8, SNORM16_MAX, SNORM8_MAX,
};

/// Returns +1.0 for `v >= 0.0` (including -0.0) and -1.0 otherwise (including NaN).
///
/// The sign used by the octahedral fold; never returns 0. No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 1 (`signNotZero`).
pub fn sign_not_zero(v: f32) -> f32 {
    if v >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// Encodes a direction as a point of the octahedral square [-1, 1]^2 (fold axis Z).
///
/// `n` need not be unit length: it is divided by its largest absolute component first (so
/// denormal inputs such as (1e-40, 0, 0) encode like (1, 0, 0) and huge ones do not
/// overflow), then projected onto `|x| + |y| + |z| = 1`; if `z < 0` the point is folded to
/// `((1 - |y|) * sign_not_zero(x), (1 - |x|) * sign_not_zero(y))`.
/// Fallback: a zero-length input or one with a NaN or infinite component is treated as
/// (0, 0, 1) and encodes to (0, 0). The result is always finite and inside [-1, 1]^2.
/// No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 1 (`float32x3_to_oct`).
pub fn oct_encode(n: Vec3) -> Vec2 {
    let Some(v) = direction(n) else {
        return Vec2::ZERO;
    };
    // v's largest absolute component is 1, so the L1 norm is in [1, 3].
    let p = v / (v.x.abs() + v.y.abs() + v.z.abs());
    if p.z < 0.0 {
        Vec2::new(
            (1.0 - p.y.abs()) * sign_not_zero(p.x),
            (1.0 - p.x.abs()) * sign_not_zero(p.y),
        )
    } else {
        Vec2::new(p.x, p.y)
    }
}

/// Decodes a point of the octahedral square to a unit vector (fold axis Z).
///
/// `v = (x, y, 1 - |x| - |y|)`; if `v.z < 0`, `v.xy = (1 - |v.yx|) * sign_not_zero(v.xy)`;
/// returns `v` normalized. The input is first clamped to [-1, 1]^2 (a no-op for any decoded
/// SNORM code, so a shader may skip it; a NaN component is treated as 0). The result is
/// unit length and never NaN for any input: the L1 norm of `v` is 1 before normalizing.
/// No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 2 (`oct_to_float32x3`).
pub fn oct_decode(e: Vec2) -> Vec3 {
    let x = clamp_unit(e.x);
    let y = clamp_unit(e.y);
    let mut v = Vec3::new(x, y, 1.0 - x.abs() - y.abs());
    if v.z < 0.0 {
        let fx = (1.0 - y.abs()) * sign_not_zero(x);
        let fy = (1.0 - x.abs()) * sign_not_zero(y);
        v.x = fx;
        v.y = fy;
    }
    v.normalize()
}

/// Encodes a direction as two SNORM16 codes of its octahedral point (4 bytes).
///
/// Layout `[x, y]`, each `clamp(round(., 32767))` of [`oct_encode`]'s result, except that the
/// "precise" variant is used: of the (up to 4) floor/ceil combinations of the two codes, the
/// one whose [`oct_decode_snorm16`] has the smallest angle to `n` is returned (ties: floor
/// before ceil, x before y). Same fallback as [`oct_encode`]: zero-length or non-finite
/// input gives `[0, 0]` (+Z). Never emits -32768. No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 5 (`float32x3_to_octn_precise`);
/// SNORM rule from glTF 2.0 `KHR_mesh_quantization`.
pub fn oct_encode_snorm16(n: Vec3) -> [i16; 2] {
    encode_precise(n, SNORM16_MAX, encode_snorm16, oct_decode_snorm16)
}

/// Decodes two SNORM16 codes of an octahedral point to a unit vector.
///
/// `oct_decode((max(c.x / 32767, -1), max(c.y / 32767, -1)))`; exactly the math a shader
/// does. Every code, -32768 included, gives a unit vector. No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 2; SNORM decode from the OpenGL 4.6 /
/// Vulkan signed normalized conversion rule.
pub fn oct_decode_snorm16(c: [i16; 2]) -> Vec3 {
    oct_decode(Vec2::new(decode_snorm16(c[0]), decode_snorm16(c[1])))
}

/// Encodes a direction as two SNORM8 codes of its octahedral point (2 bytes).
///
/// Layout `[x, y]`; the "precise" variant as in [`oct_encode_snorm16`], with 127 instead of
/// 32767 (maximum angular error below 1 degree). Zero-length or non-finite input gives
/// `[0, 0]` (+Z). Never emits -128. No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 5 (`float32x3_to_octn_precise`).
pub fn oct_encode_snorm8(n: Vec3) -> [i8; 2] {
    encode_precise(n, SNORM8_MAX, encode_snorm8, oct_decode_snorm8)
}

/// Decodes two SNORM8 codes of an octahedral point to a unit vector.
///
/// `oct_decode((max(c.x / 127, -1), max(c.y / 127, -1)))`. Every code, -128 included, gives
/// a unit vector. No allocation, no panic.
///
/// Source: Cigolle et al., JCGT 3(2), 2014, listing 2; SNORM decode from the OpenGL 4.6 /
/// Vulkan signed normalized conversion rule.
pub fn oct_decode_snorm8(c: [i8; 2]) -> Vec3 {
    oct_decode(Vec2::new(decode_snorm8(c[0]), decode_snorm8(c[1])))
}

/// `v` clamped to [-1, 1], NaN to 0.
fn clamp_unit(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(-1.0, 1.0)
    }
}

/// `n` divided by its largest absolute component, or `None` if `n` is zero or not finite.
///
/// Dividing by the max-abs component keeps denormal inputs from vanishing and huge ones
/// from overflowing; the result's largest absolute component is exactly 1.
pub(crate) fn direction(n: Vec3) -> Option<Vec3> {
    if !n.is_finite() {
        return None;
    }
    let m = n.abs().max_element();
    if m > 0.0 {
        Some(n / m)
    } else {
        None
    }
}

/// The "precise" octahedral encoder shared by the 8- and 16-bit variants.
///
/// Tries the floor/ceil combinations of the scaled octahedral point and keeps the code whose
/// real decode (`decode`, the same function a reader uses) makes the smallest angle with the
/// input. The angle is measured in f64 with `atan2(|a x b|, a . b)`, which stays accurate for
/// the tiny angles of 16-bit codes where an f32 dot product would round to 1.
fn encode_precise<C: Copy>(
    n: Vec3,
    max: f32,
    to_code: fn(f32) -> C,
    decode: fn([C; 2]) -> Vec3,
) -> [C; 2] {
    // The target direction in f64: exact for every finite f32 input (denormals included),
    // so the choice is not perturbed by f32 rounding of the input's scaling.
    let target = match direction(n) {
        Some(_) => n.as_dvec3().normalize(),
        None => DVec3::Z,
    };
    let e = oct_encode(n) * max;
    let xs = [e.x.floor(), e.x.ceil()];
    let ys = [e.y.floor(), e.y.ceil()];
    let mut best = [to_code(xs[0] / max), to_code(ys[0] / max)];
    let mut best_angle = f64::INFINITY;
    for x in xs {
        for y in ys {
            // round((x / max) * max) == x for these integral values, so to_code gives x, y back
            // (clamped to [-max, max], which they already are since e is in [-1, 1]^2).
            let code = [to_code(x / max), to_code(y / max)];
            let angle = angle_between(decode(code).as_dvec3(), target);
            if angle < best_angle {
                best_angle = angle;
                best = code;
            }
        }
    }
    best
}

/// Angle in radians between two non-zero vectors, accurate for tiny angles.
fn angle_between(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}
