//! The impostor point: where it sits on the mesh and how many pixels wide
//! it is drawn.
//!
//! A desktop GL 2.1 context (what miniquad asks for on Linux) draws a
//! non-sprite point as a square of whole pixels: its size rounded to the
//! nearest integer (OpenGL 2.1 spec, section 3.4.1 "Basic Point
//! Rasterization"; Mesa's llvmpipe rounds the same way). A size that follows
//! the projected size continuously therefore jumped from 1 to 2 pixels (area
//! 1 to 4) along the line of depth where it passed 1.5, a hard horizontal
//! seam across the world. WebGL 1 rasterizes points as sprites instead,
//! covering the pixels whose centers fall in the square, so it drew a
//! different picture from the same size.
//!
//! So the vertex shaders choose the whole-pixel side themselves
//! ([`point_side`]): `floor(size)` or one more, the larger with the
//! probability that makes the mean area `size²`, decided per unit by a
//! threshold in `[0, 1)` that is fixed for the unit's world cell
//! ([`dither_threshold`]). Both rasterizations draw a whole-pixel square the
//! same way, coverage follows the projected size with no step, and a unit
//! grows from `n` to `n + 1` pixels once, at its own zoom, instead of a whole
//! row of units at once. `shaders/unit.vert` and `shaders/unit_f32.vert`
//! carry the same lines as these functions (checked by the tests).

use super::mesh::UnitMesh;

/// Side of an impostor point relative to the model's longest side: between
/// its length and its width, so the square covers about the unit's top.
pub const POINT_SIDE: f32 = 0.75;

/// The impostor of a mesh: one vertex at the center of the top of its
/// bounding box, facing up, drawn as a square point whose side is
/// [`POINT_SIDE`] times the projected longest side. Returns the vertex
/// (model units) and the model's longest side (model units).
pub fn impostor_point(mesh: &UnitMesh) -> (glam::Vec3, f32) {
    let (lo, hi) = mesh.exact.iter().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), v| {
            let p = glam::Vec3::from_array(v.position);
            (lo.min(p), hi.max(p))
        },
    );
    let top = glam::Vec3::new(0.5 * (lo.x + hi.x), hi.y, 0.5 * (lo.z + hi.z));
    (top, (hi - lo).max_element())
}

/// The `point_px` uniform of both vertex shaders: x, the point's side in
/// pixels per unit of scale at depth 1 ([`POINT_SIDE`] times `model_len`
/// model units times `px_at_1` pixels per world unit at depth 1); y, one
/// over the world cell of [`dither_threshold`], the length of a unit of
/// base scale `scale` (`model_len * scale` world units; 1 when that is not
/// finite and positive), so two units rarely share a cell and a moving unit
/// draws a new threshold about once per body length.
pub fn point_uniform(model_len: f32, px_at_1: f32, scale: f32) -> [f32; 4] {
    let cell = model_len * scale;
    let cell = if cell.is_finite() && cell > 0.0 {
        cell
    } else {
        1.0
    };
    [POINT_SIDE * model_len * px_at_1, 1.0 / cell, 0.0, 0.0]
}

/// `x mod 289` for whole numbers `x` (as `mod289` of the shaders).
fn mod289(x: f32) -> f32 {
    x - (x * (1.0 / 289.0)).floor() * 289.0
}

/// The permutation polynomial `(34x + 10) x mod 289` of 0..288 (as
/// `permute289` of the shaders; Gustavson and McEwan, "webgl-noise", whose
/// float arithmetic stays exact in GLSL ES: every product here is below 2^24).
fn permute289(x: f32) -> f32 {
    mod289((34.0 * x + 10.0) * x)
}

/// The dither threshold of a unit at `(x, z)` (world units): a value in
/// `[0, 1)`, a multiple of 1/289, the same for every point of the world cell
/// `(floor(x * inv_cell), floor(z * inv_cell))` and spread evenly over the
/// cells (a permutation of the cell's coordinates modulo 289). As
/// `dither_threshold` of the shaders, with `inv_cell` = `point_px.y`.
pub fn dither_threshold(x: f32, z: f32, inv_cell: f32) -> f32 {
    let (cx, cz) = ((x * inv_cell).floor(), (z * inv_cell).floor());
    permute289(mod289(permute289(mod289(cx)) + mod289(cz))) / 289.0
}

/// The whole-pixel side at which a unit whose impostor should be `size`
/// pixels wide is drawn, given its dither `threshold` in `[0, 1)`: with
/// `s = max(size, 1)` and `n = floor(s)`, `n + 1` when `threshold <
/// (s² - n²) / (2n + 1)`, else `n`. Over evenly spread thresholds the mean
/// area is `s²` (`n² + p (2n + 1)`), continuous in `size`; a unit never
/// covers less than one pixel. As `point_side` of the shaders.
pub fn point_side(size: f32, threshold: f32) -> f32 {
    let s = size.max(1.0);
    let n = s.floor();
    let p = (s * s - n * n) / (2.0 * n + 1.0);
    n + if threshold < p { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::render::pipeline::{UNIT_F32_VERTEX_SHADER, UNIT_VERTEX_SHADER};

    /// Every threshold [`dither_threshold`] can give, once each.
    fn all_thresholds() -> impl Iterator<Item = f32> {
        (0..289).map(|k| k as f32 / 289.0)
    }

    /// Mean drawn area over every threshold.
    fn mean_area(size: f32) -> f32 {
        all_thresholds()
            .map(|t| point_side(size, t).powi(2))
            .sum::<f32>()
            / 289.0
    }

    #[test]
    fn point_sides_are_whole_pixels_next_to_the_size() {
        for k in 0..2_000 {
            let size = k as f32 * 0.003;
            let n = size.max(1.0).floor();
            for t in all_thresholds() {
                let side = point_side(size, t);
                assert!(side == n || side == n + 1.0, "{size} at {t}: {side}");
            }
        }
        // Whole sizes are drawn as they are; below one pixel, one pixel.
        for t in all_thresholds() {
            assert_eq!(point_side(2.0, t), 2.0);
            assert_eq!(point_side(3.0, t), 3.0);
            assert_eq!(point_side(0.2, t), 1.0);
            assert_eq!(point_side(f32::NAN, t), 1.0);
        }
    }

    #[test]
    fn the_mean_area_is_the_squared_size_with_no_step() {
        for k in 0..=400 {
            let size = 1.0 + k as f32 * 0.01;
            let want = size * size;
            let got = mean_area(size);
            // The thresholds are multiples of 1/289: the fraction drawn one
            // pixel larger is off by at most 1/289, (2n + 1)/289 in area.
            let tol = (2.0 * size.floor() + 1.0) / 289.0 + 1e-4;
            assert!((got - want).abs() <= tol, "size {size}: {got} vs {want}");
        }
        // Where rounding to the nearest pixel jumps (area 1 to 4), the mean does not.
        let (below, above) = (mean_area(1.499), mean_area(1.501));
        assert!((above - below).abs() < 0.02, "{below} vs {above}");
    }

    #[test]
    fn dither_thresholds_are_fixed_per_cell_and_evenly_spread() {
        // A permutation: along one row of 289 cells, every multiple of 1/289 once.
        for row in [0.0f32, 17.0, 288.0, 1000.0] {
            let mut seen: Vec<u32> = (0..289)
                .map(|c| (dither_threshold(c as f32, row, 1.0) * 289.0).round() as u32)
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..289).collect::<Vec<_>>(), "row {row}");
        }
        // The same cell (31, 15) of side 3.2, the same threshold; in [0, 1)
        // everywhere.
        let inv = 1.0 / 3.2;
        assert_eq!(
            dither_threshold(99.3, 48.1, inv),
            dither_threshold(102.3, 51.1, inv)
        );
        for k in 0..10_000 {
            let (x, z) = ((k * 37 % 1401) as f32 * 7.3, (k * 11 % 977) as f32 * 1.9);
            let t = dither_threshold(x, z, inv);
            assert!((0.0..1.0).contains(&t), "({x}, {z}): {t}");
        }
        // Over a block of cells (a neighborhood of units), the fraction
        // below p is about p: neighbors do not all switch at once.
        for p in [0.1f32, 0.5, 0.9] {
            let below = (0..60)
                .flat_map(|i| (0..60).map(move |j| (i, j)))
                .filter(|&(i, j)| dither_threshold(i as f32, j as f32, 1.0) < p)
                .count() as f32
                / 3_600.0;
            assert!((below - p).abs() < 0.03, "{p}: {below}");
        }
    }

    #[test]
    fn the_uniform_is_the_point_side_and_the_unit_cell() {
        let [px, inv, _, _] = point_uniform(1.6, 700.0, 2.0);
        assert!((px - 0.75 * 1.6 * 700.0).abs() < 1e-3);
        assert!((inv - 1.0 / 3.2).abs() < 1e-6);
        assert_eq!(point_uniform(1.6, 700.0, 0.0)[1], 1.0);
        assert_eq!(point_uniform(1.6, 700.0, f32::NAN)[1], 1.0);
    }

    #[test]
    fn both_shaders_carry_these_formulas() {
        let lines = [
            "float mod289(float x) { return x - floor(x * (1.0 / 289.0)) * 289.0; }",
            "float permute289(float x) { return mod289((34.0 * x + 10.0) * x); }",
            "vec2 c = floor(p * point_px.y);",
            "return permute289(mod289(permute289(mod289(c.x)) + mod289(c.y))) / 289.0;",
            "float s = max(size, 1.0);",
            "float n = floor(s);",
            "float p = (s * s - n * n) / (2.0 * n + 1.0);",
            "return n + (1.0 - step(p, threshold));",
            "gl_PointSize = point_side(point_px.x * scale / gl_Position.w, dither_threshold(pos));",
        ];
        for (name, src) in [
            ("unit.vert", UNIT_VERTEX_SHADER),
            ("unit_f32.vert", UNIT_F32_VERTEX_SHADER),
        ] {
            for line in lines {
                assert!(src.contains(line), "{name} lacks: {line}");
            }
        }
    }
}
