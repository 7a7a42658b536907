//! The cell occupancy heat map: units per grid cell of the last step, drawn
//! on the ground as one textured quad over the grid's extent.
//!
//! One texel per cell (nearest filtering, so cells stay crisp), colored with
//! the [`heat_ramp`] and saturating at twice the mean count of the occupied
//! cells; empty cells are transparent. A grid wider than
//! [`MAX_TEXTURE_SIDE`] cells on an axis is binned: a texel then sums a
//! block of cells. The texture is rebuilt when a picture begins and updated
//! in place while its size stays the same.

use glam::Vec3;
use macroquad::color::WHITE;
use macroquad::models::draw_affine_parallelogram;
use macroquad::texture::{FilterMode, Texture2D};

use super::units::heat_ramp;
use crate::engine::sim::Simulation;
use crate::engine::spatial::GridGeometry;

/// Most texels per texture side; grids wider than this are binned (the
/// largest grid, 2^20 cells, is at most 1024 x 1024 when square, but may be
/// up to 2^20 cells long on one axis).
pub const MAX_TEXTURE_SIDE: usize = 2048;
/// Opacity of an occupied cell, 0..255.
pub const OCCUPIED_ALPHA: u8 = 170;

/// How cells map to texels: `width x height` texels, each covering
/// `step_x x step_z` cells (1 x 1 unless the grid is wider than
/// [`MAX_TEXTURE_SIDE`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Texels {
    /// Texels along x (columns).
    pub width: usize,
    /// Texels along z (rows).
    pub height: usize,
    /// Cells per texel along x.
    pub step_x: usize,
    /// Cells per texel along z.
    pub step_z: usize,
}

impl Texels {
    /// The texels for a grid of `nx x nz` cells, at most `max_side` per side
    /// (at least 1).
    pub fn for_grid(nx: usize, nz: usize, max_side: usize) -> Texels {
        let max_side = max_side.max(1);
        let step_x = nx.div_ceil(max_side).max(1);
        let step_z = nz.div_ceil(max_side).max(1);
        Texels {
            width: nx.div_ceil(step_x),
            height: nz.div_ceil(step_z),
            step_x,
            step_z,
        }
    }

    /// Number of texels.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// True when there is no texel.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Sums the units of each cell of the last step's grid into texels,
/// row-major (`sums[tz * width + tx]`): from the per-cell `Vec`s for Grid,
/// from the CSR offsets for SortedGrid. Returns the grid and its texels, or
/// `None` for Naive (no cells) and an empty grid. Reuses `sums`.
pub fn occupancy(
    sim: &Simulation,
    max_side: usize,
    sums: &mut Vec<u32>,
) -> Option<(GridGeometry, Texels)> {
    let geo = *sim.index().geometry()?;
    if geo.cells() == 0 {
        return None;
    }
    let tex = Texels::for_grid(geo.nx, geo.nz, max_side);
    sums.clear();
    sums.resize(tex.len(), 0);
    let mut add = |k: usize, count: u32| {
        let (i, j) = (k % geo.nx, k / geo.nx);
        sums[(j / tex.step_z) * tex.width + i / tex.step_x] += count;
    };
    if let Some(g) = sim.uniform_grid() {
        for (k, c) in g.cells().iter().enumerate() {
            add(k, c.len() as u32);
        }
    } else if let Some(g) = sim.sorted_grid() {
        for (k, w) in g.cell_start().windows(2).take(geo.cells()).enumerate() {
            add(k, w[1] - w[0]);
        }
    } else {
        return None;
    }
    Some((geo, tex))
}

/// Colors texel sums as RGBA bytes (4 per texel, same order): transparent
/// when 0, else [`heat_ramp`]`(sum / top)` at [`OCCUPIED_ALPHA`], where `top`
/// is twice the mean of the non-zero sums (at least 1). Reuses `rgba`.
pub fn occupancy_rgba(sums: &[u32], rgba: &mut Vec<u8>) {
    let (total, occupied) = sums
        .iter()
        .filter(|&&s| s > 0)
        .fold((0u64, 0u64), |(t, n), &s| (t + s as u64, n + 1));
    let top = (2.0 * total as f64 / occupied.max(1) as f64).max(1.0) as f32;
    rgba.clear();
    rgba.extend(sums.iter().flat_map(|&s| {
        if s == 0 {
            [0, 0, 0, 0]
        } else {
            let [r, g, b] = heat_ramp(s as f32 / top);
            [r, g, b, OCCUPIED_ALPHA]
        }
    }));
}

/// The heat map's texture and the quad it covers; see the module docs.
#[derive(Default)]
pub struct CellHeatmap {
    texture: Option<(Texture2D, Texels)>,
    /// Corner `(x, z)` and edges `(along x, along z)` of the quad, world units.
    quad: Option<((f32, f32), (f32, f32))>,
    sums: Vec<u32>,
    rgba: Vec<u8>,
}

impl CellHeatmap {
    /// Rebuilds the heat map from the grid of the last step (nothing to draw
    /// for Naive). Recreates the texture only when the texel count changes,
    /// else updates it in place.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn update(&mut self, sim: &Simulation) {
        let Some((geo, tex)) = occupancy(sim, MAX_TEXTURE_SIDE, &mut self.sums) else {
            self.quad = None;
            return;
        };
        occupancy_rgba(&self.sums, &mut self.rgba);
        match &self.texture {
            Some((t, old)) if (old.width, old.height) == (tex.width, tex.height) => {
                t.update_from_bytes(tex.width as u32, tex.height as u32, &self.rgba);
            }
            _ => {
                let t = Texture2D::from_rgba8(tex.width as u16, tex.height as u16, &self.rgba);
                t.set_filter(FilterMode::Nearest);
                self.texture = Some((t, tex));
            }
        }
        if let Some((_, t)) = &mut self.texture {
            *t = tex;
        }
        let x0 = geo.origin_x as f32 * geo.cell;
        let z0 = geo.origin_z as f32 * geo.cell;
        let w = (tex.width * tex.step_x) as f32 * geo.cell;
        let d = (tex.height * tex.step_z) as f32 * geo.cell;
        self.quad = Some(((x0, z0), (w, d)));
    }

    /// Forgets the last heat map (nothing is drawn until the next
    /// [`update`](Self::update)); keeps the texture for reuse.
    pub fn clear(&mut self) {
        self.quad = None;
    }

    /// Queues the heat map as one textured quad at height `y` (world units;
    /// just above the ground plane, below the grid lines), texel columns
    /// along x and rows along z. Draws nothing before an update or for Naive.
    pub fn draw(&self, y: f32) {
        let (Some((t, _)), Some(((x0, z0), (w, d)))) = (&self.texture, self.quad) else {
            return;
        };
        // The parallelogram's first edge carries texture v (rows: z), the
        // second u (columns: x).
        draw_affine_parallelogram(
            Vec3::new(x0, y, z0),
            Vec3::new(0.0, 0.0, d),
            Vec3::new(w, 0.0, 0.0),
            Some(t),
            WHITE,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{Settings, Workload};
    use crate::engine::spatial::Strategy;

    #[test]
    fn texels_bin_only_grids_wider_than_the_cap() {
        assert_eq!(
            Texels::for_grid(44, 30, 2048),
            Texels {
                width: 44,
                height: 30,
                step_x: 1,
                step_z: 1
            }
        );
        let long = Texels::for_grid(1 << 20, 1, 2048);
        assert_eq!((long.width, long.height), (2048, 1));
        assert_eq!(long.step_x, 512);
        let odd = Texels::for_grid(5000, 3, 2048);
        assert_eq!((odd.step_x, odd.width), (3, 1667));
        assert!(odd.width * odd.step_x >= 5000);
        assert!(Texels::for_grid(0, 0, 2048).is_empty());
    }

    #[test]
    fn occupancy_counts_every_unit_once_for_both_grids_and_nothing_for_naive() {
        for strategy in Strategy::ALL {
            let s = Settings {
                units: 3_000,
                workload: Workload::Hotspot,
                strategy,
                ..Settings::default()
            };
            let mut sim = Simulation::new(&s);
            sim.step(0.05, &s);
            let mut sums = Vec::new();
            let got = occupancy(&sim, MAX_TEXTURE_SIDE, &mut sums);
            if strategy == Strategy::Naive {
                assert!(got.is_none());
                continue;
            }
            let (geo, tex) = got.expect("a grid");
            assert_eq!((tex.width, tex.height), (geo.nx, geo.nz));
            assert_eq!(sums.iter().map(|&s| s as usize).sum::<usize>(), sim.len());
            // Each unit's cell holds it.
            let (x, z) = sim.store().pos(17);
            assert!(sums[geo.cell_of(x, z).unwrap()] >= 1);
            // Binned: the same total.
            let (_, small) = occupancy(&sim, 4, &mut sums).unwrap();
            assert!(small.width <= 4 && small.height <= 4);
            assert_eq!(sums.iter().map(|&s| s as usize).sum::<usize>(), sim.len());
        }
    }

    #[test]
    fn empty_cells_are_transparent_and_the_fullest_saturate() {
        let mut rgba = Vec::new();
        occupancy_rgba(&[0, 1, 2, 100], &mut rgba);
        assert_eq!(rgba.len(), 16);
        assert_eq!(&rgba[0..4], &[0, 0, 0, 0]);
        assert_eq!(rgba[7], OCCUPIED_ALPHA);
        // Mean of the occupied cells is 34.3: 100 is past twice that.
        assert_eq!(&rgba[12..16], &[255, 255, 255, OCCUPIED_ALPHA]);
        let [a, b] = [&rgba[4..7], &rgba[8..11]];
        let luma = |c: &[u8]| 0.2126 * c[0] as f32 + 0.7152 * c[1] as f32 + 0.0722 * c[2] as f32;
        assert!(luma(a) < luma(b));
    }
}
