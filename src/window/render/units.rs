//! What the units look like: one [`UnitInstance`] per unit from the
//! simulation's units, colored by a [`ColorMode`], with the selected unit's
//! query highlighted on top; and the query circle and searched cells of the
//! selected unit on the ground.

use glam::Vec3;
use macroquad::color::Color;
use macroquad::models::draw_line_3d;

use super::UnitInstance;
use crate::engine::sim::Simulation;
use crate::engine::spatial::{Block, GridGeometry};
pub use crate::settings::view::ColorMode;

/// Team colors (RGB), cold: no enemy in range.
pub const TEAM: [[f32; 3]; 2] = [[70.0, 140.0, 255.0], [255.0, 150.0, 50.0]];
/// Team colors (RGB), hot: 12 or more enemies in range.
pub const TEAM_HOT: [[f32; 3]; 2] = [[200.0, 245.0, 255.0], [255.0, 50.0, 40.0]];
/// Color of the selected unit.
pub const SELECTED: [u8; 4] = [255, 255, 255, 255];
/// Color of the selected unit's neighbors and its query circle.
pub const NEIGHBOR: [u8; 4] = [255, 230, 60, 255];
/// Color of the units the selected unit's query tested but did not find, and
/// of the outline of the cells it searched.
pub const CANDIDATE: [u8; 4] = [255, 70, 230, 255];
/// Brightness of the units outside the selected unit's query while one is
/// selected (the mode's color times this), so the highlight stands out in
/// every color mode.
pub const DIMMED: f32 = 0.45;
/// Neighbor count at which [`ColorMode::NeighborHeat`] saturates when the
/// mean is 0 (no neighbors anywhere); else it saturates at twice the mean.
pub const HEAT_MIN_TOP: f32 = 4.0;
/// Hue span of [`ColorMode::MemoryOrder`], degrees: red (first stored unit)
/// through yellow, green, cyan and blue to violet (last), never wrapping back
/// to red, so the first and last units differ.
pub const MEMORY_HUE_SPAN: f32 = 270.0;

/// Stops of [`heat_ramp`]: dark blue, violet, red, yellow, white, with
/// increasing luminance (a perceptual order in the spirit of matplotlib's
/// "plasma" and "inferno" maps).
const HEAT_STOPS: [(f32, [f32; 3]); 5] = [
    (0.0, [12.0, 20.0, 80.0]),
    (0.3, [110.0, 40.0, 170.0]),
    (0.55, [225.0, 80.0, 80.0]),
    (0.8, [250.0, 200.0, 40.0]),
    (1.0, [255.0, 255.0, 255.0]),
];

/// The heat ramp at `t` in `[0, 1]` (clamped; NaN counts as 0): dark blue at
/// 0, violet, red, yellow, white at 1, linear in RGB between the stops,
/// luminance increasing throughout. RGB, 0..255.
pub fn heat_ramp(t: f32) -> [u8; 3] {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let k = HEAT_STOPS
        .windows(2)
        .position(|w| t <= w[1].0)
        .unwrap_or(HEAT_STOPS.len() - 2);
    let ((t0, a), (t1, b)) = (HEAT_STOPS[k], HEAT_STOPS[k + 1]);
    let f = (t - t0) / (t1 - t0);
    std::array::from_fn(|c| (a[c] + (b[c] - a[c]) * f).round() as u8)
}

/// Color of a unit with `count` neighbors when the ramp saturates at `top`
/// neighbors: [`heat_ramp`]`(count / top)`. A `top` that is not finite and
/// positive counts as 1. Non-decreasing in `count`.
pub fn neighbor_heat(count: usize, top: f32) -> [u8; 3] {
    let top = if top.is_finite() && top > 0.0 {
        top
    } else {
        1.0
    };
    heat_ramp(count as f32 / top)
}

/// The saturation point of [`ColorMode::NeighborHeat`] for `pairs` neighbor
/// entries over `units` units: twice the mean count, at least
/// [`HEAT_MIN_TOP`].
pub fn heat_top(pairs: usize, units: usize) -> f32 {
    (2.0 * pairs as f32 / units.max(1) as f32).max(HEAT_MIN_TOP)
}

/// Color of the unit stored at index `i` of `n`: hue `i / n` of
/// [`MEMORY_HUE_SPAN`] degrees (red at 0), saturation 0.8, value 0.95. RGB, 0..255.
pub fn memory_order_color(i: usize, n: usize) -> [u8; 3] {
    let h = i as f32 / n.max(1) as f32 * MEMORY_HUE_SPAN;
    hsv(h, 0.8, 0.95)
}

/// HSV to RGB: hue in degrees (any value, taken modulo 360), saturation and
/// value in `[0, 1]`. RGB, 0..255.
fn hsv(h: f32, s: f32, v: f32) -> [u8; 3] {
    let h = h.rem_euclid(360.0) / 60.0;
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|u| ((u + m) * 255.0).round() as u8)
}

/// Team color of a unit of `team` with `enemies` in range: the team's cold
/// color shifted toward its hot color, saturating at 12 enemies. RGB, 0..255.
pub fn team_color(team: u8, enemies: u16) -> [u8; 3] {
    let t = (enemies.min(12) as f32) / 12.0;
    let team = (team & 1) as usize;
    std::array::from_fn(|k| (TEAM[team][k] + (TEAM_HOT[team][k] - TEAM[team][k]) * t) as u8)
}

/// The selected unit's query, highlighted on top of every color mode.
#[derive(Clone, Copy, Debug)]
pub struct Highlight<'a> {
    /// Storage index of the selected unit (white, 1.5 times larger).
    pub selected: usize,
    /// Storage indices of the units its query tested ([`CANDIDATE`]).
    pub candidates: &'a [u32],
    /// Storage indices of the units it found ([`NEIGHBOR`]; drawn over the candidates).
    pub neighbors: &'a [u32],
}

/// Fills `out` with one instance per unit, in storage order: heading from the
/// velocity, scale `scale`, color by `mode` (see [`ColorMode`]; the neighbor
/// counts are those of the last step). With a `highlight`, every other unit
/// is dimmed to [`DIMMED`], its candidates are [`CANDIDATE`], its neighbors
/// [`NEIGHBOR`] and the selected unit [`SELECTED`] and 1.5 times larger
/// (indices past the units are ignored).
/// Reuses `out`'s capacity (allocates only when the unit count grows).
pub fn pack_instances(
    sim: &Simulation,
    mode: ColorMode,
    highlight: Option<Highlight<'_>>,
    scale: f32,
    out: &mut Vec<UnitInstance>,
) {
    pack_units(sim, mode, highlight, scale, 0..sim.len(), out);
}

/// [`pack_instances`] for the units stored at `visible` only (storage
/// indices, in that order; out of range ones are skipped), e.g. those of
/// the grid cells in view ([`visible_units`]). Same colors, same highlight.
pub fn pack_visible(
    sim: &Simulation,
    mode: ColorMode,
    highlight: Option<Highlight<'_>>,
    scale: f32,
    visible: &[u32],
    out: &mut Vec<UnitInstance>,
) {
    let n = sim.len();
    let units = visible.iter().map(|&i| i as usize).filter(move |&i| i < n);
    pack_units(sim, mode, highlight, scale, units, out);
}

/// The packing of [`pack_instances`] over `units` (storage indices < len).
fn pack_units(
    sim: &Simulation,
    mode: ColorMode,
    highlight: Option<Highlight<'_>>,
    scale: f32,
    units: impl Iterator<Item = usize>,
    out: &mut Vec<UnitInstance>,
) {
    out.clear();
    Packer::new(sim, mode, highlight, scale).pack(sim, units, out);
}

/// What packing one picture needs besides the units, computed once so a
/// picture can be packed in parts ([`Packer::pack`] per part): the color
/// mode, the scale, the top of the neighbor-heat scale and the highlighted
/// sets (sorted copies; allocated here).
#[derive(Clone, Debug)]
pub struct Packer {
    mode: ColorMode,
    scale: f32,
    top: f32,
    /// The selected unit, its candidates and its neighbors, sorted.
    highlight: Option<(usize, Vec<u32>, Vec<u32>)>,
}

impl Packer {
    /// The packing of `sim`'s units of the last step by `mode`, with
    /// `highlight` and unit scale `scale` (see [`pack_instances`]).
    pub fn new(
        sim: &Simulation,
        mode: ColorMode,
        highlight: Option<Highlight<'_>>,
        scale: f32,
    ) -> Packer {
        let n = sim.len();
        let top = if mode == ColorMode::NeighborHeat {
            let pairs: usize = (0..n).map(|i| sim.neighbor_count(i)).sum();
            heat_top(pairs, n)
        } else {
            0.0
        };
        // The highlighted sets, sorted for lookups while packing.
        let highlight = highlight.filter(|h| h.selected < n).map(|h| {
            let sorted = |v: &[u32]| {
                let mut v = v.to_vec();
                v.sort_unstable();
                v
            };
            (h.selected, sorted(h.candidates), sorted(h.neighbors))
        });
        Packer {
            mode,
            scale,
            top,
            highlight,
        }
    }

    /// Appends to `out` the instances of the units stored at `units`
    /// (storage indices below `sim.len()`, the same `sim` as [`Packer::new`]
    /// and not stepped since), in that order. Allocates only while `out` grows.
    pub fn pack(
        &self,
        sim: &Simulation,
        units: impl Iterator<Item = usize>,
        out: &mut Vec<UnitInstance>,
    ) {
        let store = sim.store();
        let n = store.len();
        let (mode, scale, top) = (self.mode, self.scale, self.top);
        out.extend(units.map(|i| {
            let u = store.hot(i);
            let [r, g, b] = match mode {
                ColorMode::Team => team_color(u.team, u.enemies),
                ColorMode::MemoryOrder => memory_order_color(i, n),
                // The renderer colors meshes by error; impostors keep the team color.
                ColorMode::NormalError => team_color(u.team, u.enemies),
                ColorMode::NeighborHeat => neighbor_heat(sim.neighbor_count(i), top),
            };
            let mut inst = UnitInstance {
                x: u.x,
                z: u.z,
                heading: u.vz.atan2(u.vx),
                scale,
                color: [r, g, b, 255],
            };
            if let Some((selected, candidates, neighbors)) = &self.highlight {
                let key = i as u32;
                inst.color = if i == *selected {
                    inst.scale = scale * 1.5;
                    SELECTED
                } else if neighbors.binary_search(&key).is_ok() {
                    NEIGHBOR
                } else if candidates.binary_search(&key).is_ok() {
                    CANDIDATE
                } else {
                    [dim(r), dim(g), dim(b), 255]
                };
            }
            inst
        }));
    }
}

/// Fills `out` (cleared first) with the storage indices of the units in the
/// grid cells that overlap the box `[x0, x1] x [z0, z1]` (world units), read
/// from the spatial index of the last step: the CSR grid's cell ranges or
/// the per-cell grid's lists, row by row. With the naive scan (no cells),
/// every unit whose position is in the box. The cells skipped are never
/// read. Allocates only while `out` grows.
pub fn visible_units(sim: &Simulation, [x0, x1, z0, z1]: [f32; 4], out: &mut Vec<u32>) {
    out.clear();
    let geo = sim.index().geometry().copied();
    let finite = [x0, x1, z0, z1].iter().all(|v| v.is_finite());
    let block = geo
        .filter(|_| finite)
        .and_then(|g| g.box_block((x0, x1), (z0, z1), 0.0));
    if let (Some(g), Some(b)) = (sim.sorted_grid(), block) {
        let starts = g.cell_start();
        let (_, _, ids) = g.sorted(sim.index_points());
        for (first, end) in g.block_rows(b) {
            let (a, e) = (starts[first] as usize, starts[end] as usize);
            out.extend_from_slice(&ids[a..e]);
        }
        return;
    }
    if let (Some(g), Some(b)) = (sim.uniform_grid(), block) {
        for cell in g.block_cells(b) {
            out.extend_from_slice(cell);
        }
        return;
    }
    if finite && geo.is_some_and(|g| g.cells() > 0) {
        // A grid whose cells all miss the box: nothing is in view.
        return;
    }
    let store = sim.store();
    out.extend((0..store.len()).filter_map(|i| {
        let (x, z) = store.pos(i);
        ((x0..=x1).contains(&x) && (z0..=z1).contains(&z)).then_some(i as u32)
    }));
}

/// A color channel times [`DIMMED`].
fn dim(c: u8) -> u8 {
    (c as f32 * DIMMED) as u8
}

/// Queues a circle of radius `r` (world units) on the ground around `(x, z)`
/// with macroquad's 3D lines (96 segments), in the neighbor color.
pub fn draw_query_circle(x: f32, z: f32, r: f32) {
    const SEGMENTS: usize = 96;
    let y = 0.15;
    let [cr, cg, cb, ca] = NEIGHBOR;
    let color = Color::from_rgba(cr, cg, cb, ca);
    for k in 0..SEGMENTS {
        let a0 = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        let a1 = (k + 1) as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        draw_line_3d(
            Vec3::new(x + r * a0.cos(), y, z + r * a0.sin()),
            Vec3::new(x + r * a1.cos(), y, z + r * a1.sin()),
            color,
        );
    }
}

/// Most inner cell lines drawn per axis by [`draw_searched_cells`]; a larger
/// block gets its outline only.
pub const MAX_BLOCK_LINES: usize = 64;

/// Queues the outline of the searched block of cells
/// (inclusive columns and rows of `geo`) on the ground in the candidate
/// color, with its inner cell lines fainter (up to [`MAX_BLOCK_LINES`] per
/// axis). Draws nothing for an empty grid or a block outside it.
pub fn draw_searched_cells(geo: &GridGeometry, Block { x0, x1, z0, z1 }: Block) {
    if x0 > x1 || z0 > z1 || x1 >= geo.nx || z1 >= geo.nz {
        return;
    }
    let y = 0.12;
    let [r, g, b, _] = CANDIDATE;
    let strong = Color::from_rgba(r, g, b, 255);
    let faint = Color::from_rgba(r, g, b, 110);
    let at_x = |i: usize| (geo.origin_x + i as i64) as f32 * geo.cell;
    let at_z = |j: usize| (geo.origin_z + j as i64) as f32 * geo.cell;
    let (ax, bx, az, bz) = (at_x(x0), at_x(x1 + 1), at_z(z0), at_z(z1 + 1));
    if x1 - x0 < MAX_BLOCK_LINES && z1 - z0 < MAX_BLOCK_LINES {
        for i in x0 + 1..=x1 {
            let x = at_x(i);
            draw_line_3d(Vec3::new(x, y, az), Vec3::new(x, y, bz), faint);
        }
        for j in z0 + 1..=z1 {
            let z = at_z(j);
            draw_line_3d(Vec3::new(ax, y, z), Vec3::new(bx, y, z), faint);
        }
    }
    let corners = [
        Vec3::new(ax, y, az),
        Vec3::new(bx, y, az),
        Vec3::new(bx, y, bz),
        Vec3::new(ax, y, bz),
    ];
    for k in 0..4 {
        draw_line_3d(corners[k], corners[(k + 1) % 4], strong);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_units_cover_the_box_through_every_strategy_and_skip_far_cells() {
        use crate::engine::sim::{Reorder, Settings};
        use crate::engine::spatial::Strategy;
        for strategy in Strategy::ALL {
            for reorder in [Reorder::Resident, Reorder::Off] {
                let s = Settings {
                    units: 5_000,
                    strategy,
                    reorder,
                    ..Settings::default()
                };
                let mut sim = Simulation::new(&s);
                sim.step(1.0 / 60.0, &s);
                let w = sim.world;
                let bounds = [0.2 * w, 0.45 * w, 0.6 * w, 0.7 * w];
                let mut out = Vec::new();
                visible_units(&sim, bounds, &mut out);
                let store = sim.store();
                let inside: Vec<u32> = (0..store.len() as u32)
                    .filter(|&i| {
                        let (x, z) = store.pos(i as usize);
                        (bounds[0]..=bounds[1]).contains(&x) && (bounds[2]..=bounds[3]).contains(&z)
                    })
                    .collect();
                let mut got = out.clone();
                got.sort_unstable();
                got.dedup();
                assert_eq!(got.len(), out.len(), "{strategy}/{reorder}: no unit twice");
                for i in &inside {
                    assert!(
                        got.binary_search(i).is_ok(),
                        "{strategy}/{reorder}: unit {i} in the box is missing"
                    );
                }
                assert!(!inside.is_empty());
                // Whole cells only: a few more than the box holds, far fewer than all.
                assert!(
                    out.len() < store.len() / 4,
                    "{strategy}/{reorder}: {} of {}",
                    out.len(),
                    store.len()
                );
                // The packed instances are those units.
                let mut inst = Vec::new();
                pack_visible(&sim, ColorMode::Team, None, 1.0, &out, &mut inst);
                assert_eq!(inst.len(), out.len());
                let (x, z) = store.pos(out[0] as usize);
                assert_eq!((inst[0].x, inst[0].z), (x, z));
                // A box off the world shows nothing; an unbounded one everything.
                visible_units(&sim, [-50.0, -10.0, -50.0, -10.0], &mut out);
                assert!(out.is_empty(), "{strategy}: {}", out.len());
                let all = [
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                ];
                visible_units(&sim, all, &mut out);
                assert_eq!(out.len(), store.len(), "{strategy}");
            }
        }
    }

    /// Relative luminance (Rec. 709 weights) of an sRGB color, 0..255.
    fn luma([r, g, b]: [u8; 3]) -> f32 {
        0.2126 * r as f32 + 0.7152 * g as f32 + 0.0722 * b as f32
    }

    #[test]
    fn the_heat_ramp_runs_from_dark_blue_to_white() {
        let cold = heat_ramp(0.0);
        assert!(
            cold[2] > cold[0] && cold[2] > cold[1],
            "blue dominates: {cold:?}"
        );
        assert!(luma(cold) < 40.0, "dark: {cold:?}");
        assert_eq!(heat_ramp(1.0), [255, 255, 255]);
        let yellow = heat_ramp(0.8);
        assert!(
            yellow[0] > 200 && yellow[1] > 180 && yellow[2] < 80,
            "{yellow:?}"
        );
        // Out of range and NaN clamp to the ends.
        assert_eq!(heat_ramp(-3.0), cold);
        assert_eq!(heat_ramp(f32::NAN), cold);
        assert_eq!(heat_ramp(7.0), [255, 255, 255]);
    }

    #[test]
    fn the_heat_ramp_brightens_steadily() {
        let mut last = -1.0;
        for k in 0..=1000 {
            let l = luma(heat_ramp(k as f32 / 1000.0));
            assert!(
                l > last - 0.5,
                "luminance drops at t = {}",
                k as f32 / 1000.0
            );
            last = last.max(l);
        }
    }

    #[test]
    fn neighbor_heat_is_monotonic_and_saturates() {
        let top = heat_top(16 * 1000, 1000);
        assert_eq!(top, 32.0);
        let mut last = -1.0;
        for count in 0..=40 {
            let l = luma(neighbor_heat(count, top));
            if count as f32 <= top {
                assert!(l > last, "count {count}: {l} after {last}");
            } else {
                assert_eq!(neighbor_heat(count, top), [255, 255, 255]);
            }
            last = l;
        }
        assert_eq!(neighbor_heat(0, top), heat_ramp(0.0));
        // No neighbors anywhere: still a usable scale; a bad top counts as 1.
        assert_eq!(heat_top(0, 0), HEAT_MIN_TOP);
        assert_eq!(neighbor_heat(1, f32::NAN), [255, 255, 255]);
    }

    #[test]
    fn memory_order_hues_follow_the_storage_index() {
        let n = 10_000;
        let (first, middle, last) = (
            memory_order_color(0, n),
            memory_order_color(n / 2, n),
            memory_order_color(n - 1, n),
        );
        let dist = |a: [u8; 3], b: [u8; 3]| {
            (0..3)
                .map(|k| (a[k] as i32 - b[k] as i32).abs())
                .max()
                .unwrap()
        };
        assert!(dist(first, middle) > 100, "{first:?} vs {middle:?}");
        assert!(
            dist(first, last) > 100,
            "the hue does not wrap: {first:?} vs {last:?}"
        );
        // Neighbors in memory look alike.
        assert!(dist(memory_order_color(4000, n), memory_order_color(4001, n)) <= 2);
        assert_eq!(first, [242, 48, 48]);
        assert_eq!(memory_order_color(0, 0), first);
    }

    #[test]
    fn team_color_is_the_cold_color_without_enemies() {
        assert_eq!(team_color(0, 0), [70, 140, 255]);
        assert_eq!(team_color(1, 12), [255, 50, 40]);
        assert_eq!(team_color(3, 500), team_color(1, 12));
    }

    #[test]
    fn pack_instances_colors_by_mode_with_the_highlight_on_top() {
        use crate::engine::sim::{Settings, Simulation};
        let s = Settings {
            units: 2_000,
            ..Settings::default()
        };
        let mut sim = Simulation::new(&s);
        sim.step(0.05, &s);
        let mut out = Vec::new();
        pack_instances(&sim, ColorMode::NeighborHeat, None, 2.0, &mut out);
        assert_eq!(out.len(), sim.len());
        let pairs: usize = (0..sim.len()).map(|i| sim.neighbor_count(i)).sum();
        let top = heat_top(pairs, sim.len());
        for (i, inst) in out.iter().enumerate().step_by(97) {
            let [r, g, b] = neighbor_heat(sim.neighbor_count(i), top);
            assert_eq!(inst.color, [r, g, b, 255], "unit {i}");
        }
        pack_instances(&sim, ColorMode::MemoryOrder, None, 2.0, &mut out);
        let [r, g, b] = memory_order_color(7, sim.len());
        assert_eq!(out[7].color, [r, g, b, 255]);

        let insp = crate::engine::sim::inspect::inspect(&sim, 5, s.radius);
        let capacity = out.capacity();
        let highlight = Highlight {
            selected: 5,
            candidates: &insp.candidates,
            neighbors: &insp.neighbors,
        };
        pack_instances(&sim, ColorMode::Team, Some(highlight), 2.0, &mut out);
        assert_eq!(out.capacity(), capacity, "no new allocation");
        assert_eq!((out[5].color, out[5].scale), (SELECTED, 3.0));
        for &j in &insp.neighbors {
            assert_eq!(out[j as usize].color, NEIGHBOR);
        }
        let missed = insp
            .candidates
            .iter()
            .find(|&&j| j != 5 && !insp.neighbors.contains(&j));
        if let Some(&j) = missed {
            assert_eq!(out[j as usize].color, CANDIDATE);
        }
        let other = (0..sim.len() as u32)
            .find(|j| !insp.candidates.contains(j))
            .expect("a unit outside the block") as usize;
        let u = sim.store().hot(other);
        let [r, g, b] = team_color(u.team, u.enemies);
        assert_eq!(out[other].color, [dim(r), dim(g), dim(b), 255], "dimmed");
    }

    #[test]
    fn color_modes_parse_and_cycle() {
        for m in ColorMode::ALL {
            assert_eq!(ColorMode::from_key(m.key()), Some(m));
            assert_eq!(ColorMode::from_key(m.name()), Some(m));
            assert!(!m.describe().is_empty());
        }
        assert_eq!(
            ColorMode::from_key("Neighbor_Heat"),
            Some(ColorMode::NeighborHeat)
        );
        assert_eq!(ColorMode::from_key("memory"), Some(ColorMode::MemoryOrder));
        assert_eq!(ColorMode::from_key("rainbow"), None);
        let mut m = ColorMode::Team;
        for _ in 0..ColorMode::ALL.len() {
            m = m.next();
        }
        assert_eq!(m, ColorMode::Team);
    }
}
