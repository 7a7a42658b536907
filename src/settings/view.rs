//! The window's look as plain values: the vertex layout, the normal
//! precision, the unit mesh, the color mode and the cache model's caches,
//! with the names the command line, files and the overlay share, and
//! [`ViewSettings`], written from the settings table's view rows.
//!
//! No window code here (it builds without the `window` feature), so
//! scenario files and links can name and check these values too. What the
//! window does with them (byte figures, normal codes, mesh files, colors)
//! lives in `crate::window::render` (`instances`, `mesh`, `units`), which
//! re-exports these types.

/// How the unit mesh and its instances are laid out in GPU memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VertexLayout {
    /// Split streams: SNORM16 positions (8 B) and octahedral SNORM16
    /// normals (4 B) per vertex, `render::PackedInstance` (8 B) per instance.
    #[default]
    Compressed,
    /// One interleaved `f32` stream per vertex (position, normal, padding:
    /// 32 B, `render::instances::FloatVertex`) and `render::UnitInstance`
    /// (20 B) per instance.
    Uncompressed,
}

// Compressed first.
crate::named! { VertexLayout, display = key, {
    Compressed => "compressed", "compressed";
    Uncompressed => "uncompressed", "uncompressed";
} }

impl VertexLayout {
    /// The other layout.
    pub fn next(self) -> VertexLayout {
        match self {
            VertexLayout::Compressed => VertexLayout::Uncompressed,
            VertexLayout::Uncompressed => VertexLayout::Compressed,
        }
    }
}

/// Bits per component of the compressed layout's octahedral normals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NormalPrecision {
    /// Two SNORM16 codes (the default; error below 0.01 degree).
    #[default]
    Oct16,
    /// Two SNORM8 codes (error below 1 degree), stored in the same 16-bit
    /// stream (each 8-bit value re-expressed as the nearest 16-bit code), so
    /// the pipeline stays the same and the picture shows 8-bit precision.
    Oct8,
}

/// The bytes each layout streams to the GPU (`crate::window::render` lays the
/// streams out with these sizes and checks them at compile time).
impl VertexLayout {
    /// Bytes per vertex of each per-vertex stream, in binding order:
    /// `[8, 4]` (SNORM16 position, octahedral normal) compressed, `[32]`
    /// uncompressed (position, normal and padding as `f32`).
    pub const fn vertex_stream_bytes(self) -> &'static [usize] {
        match self {
            VertexLayout::Compressed => &[8, 4],
            VertexLayout::Uncompressed => &[32],
        }
    }

    /// Bytes per vertex over all per-vertex streams: 12 or 32.
    pub const fn vertex_bytes(self) -> usize {
        match self {
            VertexLayout::Compressed => 12,
            VertexLayout::Uncompressed => 32,
        }
    }

    /// Bytes per instance: 8 (packed position, heading, RGB565) or 20
    /// (position, heading, scale and color as `f32`).
    pub const fn instance_bytes(self) -> usize {
        match self {
            VertexLayout::Compressed => 8,
            VertexLayout::Uncompressed => 20,
        }
    }
}

impl NormalPrecision {
    /// Both, 16-bit first.
    pub const ALL: [NormalPrecision; 2] = [NormalPrecision::Oct16, NormalPrecision::Oct8];

    /// Bits per component.
    pub fn bits(self) -> u32 {
        match self {
            NormalPrecision::Oct16 => 16,
            NormalPrecision::Oct8 => 8,
        }
    }

    /// The precision of `bits` per component (16 or 8), as `--normal-bits`
    /// and a scenario's `normal_bits` name it; `None` for any other count.
    pub fn from_bits(bits: i64) -> Option<NormalPrecision> {
        NormalPrecision::ALL
            .into_iter()
            .find(|p| i64::from(p.bits()) == bits)
    }

    /// The 16-bit octahedral codes of `normal` at this precision: the
    /// precise SNORM16 encoding, or the precise SNORM8 encoding with each
    /// code `c` stored as `round(c / 127 * 32767)` (decodes within 1/65534
    /// of `c / 127`). Source: Cigolle et al., JCGT 3(2), 2014.
    pub fn encode(self, normal: glam::Vec3) -> [i16; 2] {
        use crate::engine::compress::octahedral::{oct_encode_snorm16, oct_encode_snorm8};
        match self {
            NormalPrecision::Oct16 => oct_encode_snorm16(normal),
            NormalPrecision::Oct8 => oct_encode_snorm8(normal).map(|c| {
                (crate::engine::compress::snorm::decode_snorm8(c) * 32_767.0).round() as i16
            }),
        }
    }

    /// Largest and mean angle, degrees, between `n` unit directions spread
    /// evenly over the sphere (a Fibonacci lattice: `z = 1 - (2k + 1) / n`,
    /// longitude `k` times the golden angle; Gonzalez, Math. Geosciences
    /// 42, 2010) and what the shader decodes from their codes at this
    /// precision (`atan2(|a x b|, a . b)` in f64). Every direction a mesh
    /// can have, not one mesh's normals. `(0, 0)` for `n == 0`. Allocates
    /// nothing.
    pub fn sphere_error_deg(self, n: usize) -> (f64, f64) {
        use crate::engine::compress::octahedral::oct_decode_snorm16;
        let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
        let (mut max, mut sum) = (0.0f64, 0.0f64);
        for k in 0..n {
            let z = 1.0 - (2.0 * k as f64 + 1.0) / n as f64;
            let rho = (1.0 - z * z).max(0.0).sqrt();
            let phi = golden * k as f64;
            let a = glam::DVec3::new(rho * phi.cos(), rho * phi.sin(), z);
            let b = oct_decode_snorm16(self.encode(a.as_vec3())).as_dvec3();
            let deg = a.cross(b).length().atan2(a.dot(b)).to_degrees();
            max = max.max(deg);
            sum += deg;
        }
        (max, if n == 0 { 0.0 } else { sum / n as f64 })
    }

    /// The other precision.
    pub fn next(self) -> NormalPrecision {
        match self {
            NormalPrecision::Oct16 => NormalPrecision::Oct8,
            NormalPrecision::Oct8 => NormalPrecision::Oct16,
        }
    }
}

/// The unit meshes the window offers: the tank embedded in the binary and
/// the meshes in `assets/`, loaded from disk when chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnitMeshKind {
    /// `assets/unit.obj`, embedded at compile time (36 flat triangles).
    #[default]
    Tank,
    /// `assets/infantry.obj` (about 200 triangles, smooth torso and head).
    Infantry,
    /// `assets/vehicle.obj` (about 290 triangles, smooth wheels and turret).
    Vehicle,
}

// The built-in mesh first.
crate::named! { UnitMeshKind, display = key, {
    Tank => "tank", "tank";
    Infantry => "infantry", "infantry";
    Vehicle => "vehicle", "vehicle";
} }

impl UnitMeshKind {
    /// The next mesh (wrapping).
    pub fn next(self) -> UnitMeshKind {
        let i = UnitMeshKind::ALL
            .iter()
            .position(|&k| k == self)
            .unwrap_or(0);
        UnitMeshKind::ALL[(i + 1) % UnitMeshKind::ALL.len()]
    }

    /// The file under `assets/` for the meshes read from disk.
    pub fn file(self) -> Option<&'static str> {
        match self {
            UnitMeshKind::Tank => None,
            UnitMeshKind::Infantry => Some("infantry.obj"),
            UnitMeshKind::Vehicle => Some("vehicle.obj"),
        }
    }
}

/// How units are colored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColorMode {
    /// Team color, shifted toward the team's hot color by enemies in range.
    #[default]
    Team,
    /// Neighbor count of the last step on a dark blue → yellow → white ramp.
    NeighborHeat,
    /// Hue from the storage index: shows the memory order of the units.
    MemoryOrder,
    /// The mesh's vertices colored by the angular error of their quantized
    /// normals (the normal precision lesson); impostors keep the team color.
    NormalError,
}

// The order the overlay lists them and the key cycles them.
crate::named! { ColorMode {
    Team => "team", "team";
    NeighborHeat => "neighbor-heat", "neighbor heat", ["heat"];
    MemoryOrder => "memory-order", "memory order", ["memory", "order"];
    NormalError => "normal-error", "normal error";
} }

impl ColorMode {
    /// The next mode (wrapping), for the key that cycles them.
    pub fn next(self) -> ColorMode {
        let k = ColorMode::ALL.iter().position(|&m| m == self).unwrap_or(0);
        ColorMode::ALL[(k + 1) % ColorMode::ALL.len()]
    }

    /// One-line explanation for the overlay's tooltip.
    pub fn describe(self) -> &'static str {
        match self {
            ColorMode::Team => "Team color (blue / orange), brighter the more enemies are within the query radius (saturating at 12).",
            ColorMode::NeighborHeat => "Neighbors found in the last step: dark blue (none) through violet, red and yellow to white at twice the mean count. Crowds glow; the grid's cost follows them.",
            ColorMode::MemoryOrder => "Hue from the unit's place in memory (storage index / unit count, red first, violet last). Units stored next to each other get similar hues: spawn order (order: off) looks like noise, cell or Morton order shows smooth patches.",
            ColorMode::NormalError => "Each face colored by the angle between its exact normal and the one the shader decodes from the octahedral code at the chosen precision (key N: 16 or 8 bits per component): blue none, red the mesh's largest. Units small enough to be impostors keep their team color; zoom in.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for l in VertexLayout::ALL {
            assert_eq!(VertexLayout::from_key(l.key()), Some(l));
            assert_eq!(l.next().next(), l);
        }
        for p in NormalPrecision::ALL {
            assert_eq!(NormalPrecision::from_bits(i64::from(p.bits())), Some(p));
        }
        assert_eq!(NormalPrecision::from_bits(12), None);
        for k in UnitMeshKind::ALL {
            assert_eq!(UnitMeshKind::from_key(k.key()), Some(k));
        }
        for c in ColorMode::ALL {
            assert_eq!(ColorMode::from_key(c.key()), Some(c));
            assert_eq!(ColorMode::from_key(c.name()), Some(c));
        }
        assert_eq!(ColorMode::from_key("rainbow"), None);
    }
}

/// Which caches the cache model simulates (the memory view, `bench`'s
/// `model`): this machine's, or the classroom's, the same on every machine
/// (`crate::measure::memory::cache_model` gives each its levels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Geometry {
    /// This machine's L1d, L2 and last-level caches.
    #[default]
    Machine,
    /// L1d 32 KiB 8-way, L2 512 KiB 8-way, last level 8 MiB 16-way, on every machine.
    Classroom,
}

crate::named! { Geometry {
    Machine => "machine", "this machine";
    Classroom => "classroom", "classroom";
} }

/// Writes [`ViewSettings`] and its defaults from the settings table's view
/// rows.
macro_rules! view_settings {
    (
        engine { $($engine:tt)* }
        view {$(
            $key:ident : $ty:ty = $kind:ident {
                flag: $flag:literal,
                default: ($default:expr),
                range: $range:tt,
                unit: $unit:literal,
                slider: $slider:tt,
                help: $help:literal,
                on: [$($surface:ident),*],
                bench: $bench:tt,
            }
        )*}
    ) => {
        /// The window's look, one field per view row of the settings table
        /// (the engine never reads them): scenario and lesson files, flags
        /// and links set them like the engine's settings.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct ViewSettings {
            $(
                #[doc = $help]
                pub $key: $ty,
            )*
        }

        impl Default for ViewSettings {
            fn default() -> Self {
                ViewSettings {
                    $($key: $default,)*
                }
            }
        }
    };
}

crate::settings_table!(view_settings);
