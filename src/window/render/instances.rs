//! The two per-instance formats of the unit pipeline and the vertex layout
//! switch between them.
//!
//! - `uncompressed`: [`UnitInstance`], four `f32` and an RGBA8 color, 20 bytes,
//!   as a naive engine uploads it.
//! - `compressed`: [`PackedInstance`], four `u16`, 8 bytes: x and z as 16-bit
//!   fixed point over the world `[0, L]`, the heading in 15 bits with a flag
//!   for the enlarged (selected) unit, the color in RGB565.
//!
//! [`InstanceCodec`] is the one encoder; `shaders/unit.vert` decodes with the
//! same formulas (mirrored and checked by the tests of this module):
//!
//! | field   | encode (CPU)                                        | decode (shader)                       |
//! |---------|-----------------------------------------------------|---------------------------------------|
//! | x, z    | `u = round(clamp(x / L, 0, 1) * 65535)`             | `x = u / 65535 * L`                   |
//! | heading | `k = round(fract(h / 2π) * 32768) mod 32768`        | `h = k * 2π / 32768`                  |
//! | enlarge | bit 15 of the heading word                          | `f = step(32768, w)`, `k = w - 32768 f` |
//! | color   | `r5 << 11 | g6 << 5 | b5`, `r5 = round(r * 31 / 255)` | `r = floor(c / 2048) / 31`, ...       |
//!
//! Position error is at most half a step, `L / 65535 / 2` world units per
//! axis; heading error at most `π / 32768` radians; color error at most half
//! a 5- or 6-bit step.

pub use crate::settings::view::{NormalPrecision, VertexLayout};

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

// The byte counts of each layout are [`crate::settings::view`]'s (the engine quotes
// them in lessons); these structs must match them.
const _: () = assert!(
    std::mem::size_of::<FloatVertex>() == VertexLayout::Uncompressed.vertex_bytes()
        && std::mem::size_of::<PackedInstance>() == VertexLayout::Compressed.instance_bytes()
        && std::mem::size_of::<UnitInstance>() == VertexLayout::Uncompressed.instance_bytes()
);

/// One vertex of the uncompressed stream, 32 bytes: model-space position
/// and unit normal as `f32`, then two padding floats (the 16-byte multiple
/// a naive engine keeps, e.g. for a texture coordinate it does not use).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FloatVertex {
    /// Model-space position, model units.
    pub position: [f32; 3],
    /// Unit normal, model space.
    pub normal: [f32; 3],
    /// Unused (0), except in the normal error view's streams, where
    /// `pad[0]` is the vertex's normal error in degrees.
    pub pad: [f32; 2],
}

const _: () = assert!(std::mem::size_of::<FloatVertex>() == 32);

/// One unit in the compressed instance stream, 8 bytes (`Short4` in the
/// shader, each word arriving as a float in 0..65535). See the module docs
/// for the formulas.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PackedInstance {
    /// x as a fraction of the world edge, 0..65535.
    pub x: u16,
    /// z as a fraction of the world edge, 0..65535.
    pub z: u16,
    /// Heading in units of 2π / 32768 (bits 0..15), bit 15 set for an
    /// enlarged (selected) unit.
    pub heading: u16,
    /// RGB565 color.
    pub color: u16,
}

const _: () = assert!(std::mem::size_of::<PackedInstance>() == 8);

/// Steps of a position word.
const POS_STEPS: f32 = 65_535.0;
/// Steps of a full turn in the heading word.
const HEADING_STEPS: f32 = 32_768.0;
/// Bit of the heading word marking an enlarged unit.
const ENLARGED: u16 = 0x8000;

/// Encoder of [`PackedInstance`] for a world of edge `world` (world units;
/// positions in `[0, world]`) and a base unit scale `scale`: an instance
/// whose scale exceeds `scale` is marked enlarged (drawn at 1.5 times the
/// base scale, the selected unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstanceCodec {
    /// World edge, world units (> 0; anything else encodes every position as 0).
    pub world: f32,
    /// Base model scale of every instance.
    pub scale: f32,
}

/// Scale of an enlarged instance relative to the base scale (the selected unit).
pub const ENLARGED_SCALE: f32 = 1.5;

impl InstanceCodec {
    /// The largest position error of [`InstanceCodec::encode`] then
    /// [`InstanceCodec::decode`] for a position in `[0, world]`: half a step,
    /// `world / 65535 / 2` world units.
    pub fn half_step(&self) -> f32 {
        self.world / POS_STEPS / 2.0
    }

    /// Packs one instance (see the module docs). Positions outside
    /// `[0, world]` clamp to its edge; a non-finite position or heading
    /// encodes as 0. Never panics.
    pub fn encode(&self, inst: &UnitInstance) -> PackedInstance {
        let world = if self.world > 0.0 && self.world.is_finite() {
            self.world
        } else {
            f32::INFINITY
        };
        let pos = |v: f32| {
            let t = (v / world).clamp(0.0, 1.0);
            // NaN clamps to NaN; `as` turns it into 0.
            (t * POS_STEPS).round() as u16
        };
        let turn = (inst.heading / std::f32::consts::TAU).rem_euclid(1.0);
        let k = ((turn * HEADING_STEPS).round() as u32 % HEADING_STEPS as u32) as u16;
        let enlarged = if inst.scale > self.scale { ENLARGED } else { 0 };
        let [r, g, b, _] = inst.color;
        PackedInstance {
            x: pos(inst.x),
            z: pos(inst.z),
            heading: k | enlarged,
            color: rgb565([r, g, b]),
        }
    }

    /// Fills `out` (cleared first) with [`InstanceCodec::encode`] of every
    /// instance, in order. Allocates only while `out` grows.
    pub fn encode_all(&self, instances: &[UnitInstance], out: &mut Vec<PackedInstance>) {
        out.clear();
        out.extend(instances.iter().map(|i| self.encode(i)));
    }

    /// What the shader decodes from `p`: position (world units), heading
    /// (radians in `[0, 2π)`), scale and RGB in 0..1. The CPU mirror of
    /// `shaders/unit.vert`, for the tests.
    pub fn decode(&self, p: PackedInstance) -> (f32, f32, f32, f32, [f32; 3]) {
        let w = p.heading as f32;
        let flag = if w >= 32_768.0 { 1.0 } else { 0.0 };
        let k = w - 32_768.0 * flag;
        let c = p.color as f32;
        let r = (c / 2048.0).floor();
        let g = ((c % 2048.0) / 32.0).floor();
        let b = c % 32.0;
        (
            p.x as f32 / POS_STEPS * self.world,
            p.z as f32 / POS_STEPS * self.world,
            k * (std::f32::consts::TAU / HEADING_STEPS),
            self.scale * (1.0 + (ENLARGED_SCALE - 1.0) * flag),
            [r / 31.0, g / 63.0, b / 31.0],
        )
    }
}

/// RGB565 of an 8-bit RGB color: 5 bits red (high), 6 green, 5 blue, each
/// channel rounded to its nearest step.
pub fn rgb565([r, g, b]: [u8; 3]) -> u16 {
    let q = |c: u8, max: u32| (c as u32 * max + 127) / 255;
    ((q(r, 31) << 11) | (q(g, 63) << 5) | q(b, 31)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{PI, TAU};

    fn inst(x: f32, z: f32, heading: f32, scale: f32, color: [u8; 4]) -> UnitInstance {
        UnitInstance {
            x,
            z,
            heading,
            scale,
            color,
        }
    }

    #[test]
    fn positions_round_trip_within_half_a_step_of_the_world_extent() {
        for world in [1.0f32, 443.0, 4_430.0, 14_000.0] {
            let codec = InstanceCodec { world, scale: 1.0 };
            let bound = codec.half_step() * (1.0 + 1e-5) + world * f32::EPSILON;
            let mut worst = 0.0f32;
            for k in 0..=10_000u32 {
                let x = world * k as f32 / 10_000.0;
                let z = world - x;
                let p = codec.encode(&inst(x, z, 0.0, 1.0, [0; 4]));
                let (dx, dz, ..) = codec.decode(p);
                worst = worst.max((dx - x).abs()).max((dz - z).abs());
            }
            assert!(worst <= bound, "world {world}: error {worst} > {bound}");
            // The bound is tight: some position is off by most of a half step.
            assert!(worst > 0.4 * codec.half_step(), "world {world}: {worst}");
        }
    }

    #[test]
    fn positions_outside_the_world_and_non_finite_values_do_not_panic() {
        let codec = InstanceCodec {
            world: 100.0,
            scale: 1.0,
        };
        let p = codec.encode(&inst(-5.0, 250.0, f32::NAN, 1.0, [0; 4]));
        assert_eq!((p.x, p.z, p.heading), (0, 65_535, 0));
        let p = codec.encode(&inst(f32::NAN, f32::INFINITY, f32::INFINITY, 1.0, [0; 4]));
        assert_eq!((p.x, p.z, p.heading), (0, 65_535, 0));
        let broken = InstanceCodec {
            world: 0.0,
            scale: 1.0,
        };
        assert_eq!(broken.encode(&inst(3.0, 4.0, 0.0, 1.0, [0; 4])).x, 0);
    }

    #[test]
    fn headings_round_trip_within_half_a_step_and_keep_the_enlarged_flag() {
        let codec = InstanceCodec {
            world: 10.0,
            scale: 2.0,
        };
        let step = TAU / 32_768.0;
        for k in -2_000..=2_000 {
            let h = k as f32 * 0.0031 * PI;
            for (scale, want) in [(2.0, 2.0), (3.0, 3.0)] {
                let (.., got, s, _) = codec.decode(codec.encode(&inst(1.0, 1.0, h, scale, [0; 4])));
                // Compare on the circle.
                let d = (got - h).rem_euclid(TAU);
                let err = d.min(TAU - d);
                assert!(
                    err <= step / 2.0 + 1e-5,
                    "heading {h}: decoded {got}, error {err}"
                );
                assert_eq!(s, want, "scale of heading {h}");
            }
        }
    }

    #[test]
    fn colors_round_trip_to_the_nearest_565_step() {
        let codec = InstanceCodec {
            world: 10.0,
            scale: 1.0,
        };
        for c in 0..=255u8 {
            let (.., rgb) =
                codec.decode(codec.encode(&inst(0.0, 0.0, 0.0, 1.0, [c, c, 255 - c, 255])));
            let want = [c, c, 255 - c].map(|v| v as f32 / 255.0);
            for (k, (got, want)) in rgb.iter().zip(want).enumerate() {
                let half = if k == 1 { 0.5 / 63.0 } else { 0.5 / 31.0 };
                assert!(
                    (got - want).abs() <= half + 1e-6,
                    "channel {k} of {c}: {got} vs {want}"
                );
            }
        }
        assert_eq!(rgb565([255, 255, 255]), 0xffff);
        assert_eq!(rgb565([255, 0, 0]), 0xf800);
        assert_eq!(rgb565([0, 255, 0]), 0x07e0);
        assert_eq!(rgb565([0, 0, 255]), 0x001f);
    }

    #[test]
    fn byte_figures_of_the_two_layouts() {
        assert_eq!(VertexLayout::Compressed.vertex_bytes(), 12);
        assert_eq!(VertexLayout::Uncompressed.vertex_bytes(), 32);
        assert_eq!(VertexLayout::Compressed.instance_bytes(), 8);
        assert_eq!(VertexLayout::Uncompressed.instance_bytes(), 20);
        for l in VertexLayout::ALL {
            assert_eq!(VertexLayout::from_key(l.key()), Some(l));
            assert_eq!(l.next().next(), l);
        }
        assert_eq!(VertexLayout::from_key("zip"), None);
    }
}

/// Angular error of each decoded normal against the exact one, degrees,
/// with its maximum and mean ([`normal_errors`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NormalErrors {
    /// One per vertex, degrees, in vertex order.
    pub per_vertex: Vec<f32>,
    /// Largest, degrees.
    pub max: f32,
    /// Mean over the vertices, degrees.
    pub mean: f32,
}

/// The angle between each exact unit normal and what the shader decodes
/// from its codes at `precision` ([`NormalPrecision::encode`], then
/// `oct_decode_snorm16`), in degrees (f64 `atan2(|a x b|, a . b)`, accurate
/// for tiny angles). Allocates the per-vertex list.
pub fn normal_errors(normals: &[glam::Vec3], precision: NormalPrecision) -> NormalErrors {
    use crate::engine::compress::octahedral::oct_decode_snorm16;
    let per_vertex: Vec<f32> = normals
        .iter()
        .map(|&n| {
            let (a, b) = (
                n.as_dvec3(),
                oct_decode_snorm16(precision.encode(n)).as_dvec3(),
            );
            a.cross(b).length().atan2(a.dot(b)).to_degrees() as f32
        })
        .collect();
    let max = per_vertex.iter().copied().fold(0.0, f32::max);
    let mean = per_vertex.iter().sum::<f32>() / per_vertex.len().max(1) as f32;
    NormalErrors {
        per_vertex,
        max,
        mean,
    }
}

#[cfg(test)]
mod normal_tests {
    use super::*;
    use glam::Vec3;

    fn sphere(n: usize) -> Vec<Vec3> {
        // Fibonacci sphere: evenly spread unit vectors.
        let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
        (0..n)
            .map(|i| {
                let y = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
                let r = (1.0 - y * y).sqrt();
                let a = golden * i as f32;
                Vec3::new(r * a.cos(), y, r * a.sin())
            })
            .collect()
    }

    #[test]
    fn both_precisions_stay_within_the_octahedral_bounds() {
        // Bounds of tests/compress.rs: 0.01 degree (16-bit), 1 degree (8-bit).
        let normals = sphere(20_000);
        let e16 = normal_errors(&normals, NormalPrecision::Oct16);
        let e8 = normal_errors(&normals, NormalPrecision::Oct8);
        assert!(e16.max < 0.01, "16-bit max {}", e16.max);
        assert!(e8.max < 1.0, "8-bit max {}", e8.max);
        // 8-bit is visibly coarser: its mean error is far above 16-bit's max.
        assert!(e8.mean > 20.0 * e16.max, "{} vs {}", e8.mean, e16.max);
        assert!(e16.mean <= e16.max && e8.mean <= e8.max);
        assert_eq!(e8.per_vertex.len(), normals.len());
    }

    #[test]
    fn eight_bit_codes_decode_to_the_8_bit_values() {
        use crate::engine::compress::octahedral::oct_encode_snorm8;
        use crate::engine::compress::snorm::{decode_snorm16, decode_snorm8};
        for n in sphere(2_000) {
            let c8 = oct_encode_snorm8(n);
            let c16 = NormalPrecision::Oct8.encode(n);
            for k in 0..2 {
                let d = (decode_snorm16(c16[k]) - decode_snorm8(c8[k])).abs();
                assert!(d <= 0.5 / 32_767.0 + 1e-7, "{n}: {d}");
            }
        }
    }
}
