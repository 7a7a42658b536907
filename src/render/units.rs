//! What the units look like: one [`UnitInstance`] per unit from the
//! simulation's SoA arrays, and the query circle of the selected unit.

use glam::Vec3;
use macroquad::color::Color;
use macroquad::models::draw_line_3d;

use super::UnitInstance;
use crate::sim::Simulation;

/// Team colors (RGB), cold: no enemy in range.
pub const TEAM: [[f32; 3]; 2] = [[70.0, 140.0, 255.0], [255.0, 150.0, 50.0]];
/// Team colors (RGB), hot: 12 or more enemies in range.
pub const TEAM_HOT: [[f32; 3]; 2] = [[200.0, 245.0, 255.0], [255.0, 50.0, 40.0]];
/// Color of the selected unit.
pub const SELECTED: [u8; 4] = [255, 255, 255, 255];
/// Color of the selected unit's neighbors and its query circle.
pub const NEIGHBOR: [u8; 4] = [255, 230, 60, 255];

/// Fills `out` with one instance per unit, in unit order: heading from the
/// velocity, color from the team shifted toward the hot color by enemies in
/// range (saturating at 12), scale `scale`. The `selected` unit (an index) is
/// white and 1.5 times larger, its neighbors of the last step yellow. Reuses
/// `out`'s capacity (allocates only when the unit count grows).
pub fn pack_instances(
    sim: &Simulation,
    selected: Option<usize>,
    scale: f32,
    out: &mut Vec<UnitInstance>,
) {
    let store = sim.store();
    out.clear();
    out.extend((0..store.len()).map(|i| {
        let u = store.hot(i);
        let t = (u.enemies.min(12) as f32) / 12.0;
        let team = (u.team & 1) as usize;
        let c = |k: usize| (TEAM[team][k] + (TEAM_HOT[team][k] - TEAM[team][k]) * t) as u8;
        UnitInstance {
            x: u.x,
            z: u.z,
            heading: u.vz.atan2(u.vx),
            scale,
            color: [c(0), c(1), c(2), 255],
        }
    }));
    if let Some(i) = selected.filter(|&i| i < out.len()) {
        for &j in sim.results().neighbors(i) {
            out[j as usize].color = NEIGHBOR;
        }
        out[i].color = SELECTED;
        out[i].scale = scale * 1.5;
    }
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
