//! The ground: a plane over the square world, its border and an optional grid,
//! drawn with macroquad's 3D functions (call after `set_camera` with
//! [`OrbitCamera::macroquad_camera`](crate::window::render::camera::OrbitCamera::macroquad_camera)).

use glam::{Vec2, Vec3};
use macroquad::color::Color;
use macroquad::models::{draw_affine_parallelogram, draw_line_3d, draw_plane};

/// Ground color: dark, slightly blue-grey.
pub const GROUND_COLOR: Color = Color::new(0.15, 0.17, 0.21, 1.0);
/// Border color: bright.
pub const BORDER_COLOR: Color = Color::new(0.92, 0.94, 0.98, 1.0);
/// Grid line color: faint (blended over the ground).
pub const GRID_COLOR: Color = Color::new(0.55, 0.62, 0.72, 0.3);
/// Most grid lines drawn per axis; a finer grid is skipped entirely.
pub const MAX_GRID_LINES: usize = 400;

/// Height of the grid lines above the ground plane for a world of edge
/// `world_size` (world units): enough to never z-fight with the plane at
/// the camera's depth precision. The border sits at twice this height; other
/// ground overlays go between 0 and it (the heat map at half of it).
pub fn ground_lift(world_size: f32) -> f32 {
    (world_size * 1.0e-4).max(0.01)
}

/// Draws the ground plane over `[0, L] x [0, L]` on y = 0 (`L = world_size`,
/// world units), a bright border just outside it, and, if `grid_cell` is
/// `Some(cell)`, faint grid lines every `cell` world units starting at 0.
///
/// The grid is skipped if it would need more than [`MAX_GRID_LINES`] lines
/// per axis, or if `cell` is not finite and positive. Lines and border are
/// lifted slightly above the plane so they do not z-fight with it. Draws
/// nothing if `world_size` is not finite and positive. Queues macroquad
/// geometry (no allocation beyond macroquad's batch).
pub fn draw_world(world_size: f32, grid_cell: Option<f32>) {
    if !(world_size.is_finite() && world_size > 0.0) {
        return;
    }
    let l = world_size;
    let half = 0.5 * l;
    draw_plane(
        Vec3::new(half, 0.0, half),
        Vec2::splat(half),
        None,
        GROUND_COLOR,
    );

    let lift = ground_lift(l);

    if let Some(cell) = grid_cell.filter(|c| c.is_finite() && *c > 0.0) {
        let lines = (l / cell).floor() as usize + 1;
        if lines <= MAX_GRID_LINES {
            for i in 0..lines {
                let t = (i as f32 * cell).min(l);
                draw_line_3d(Vec3::new(t, lift, 0.0), Vec3::new(t, lift, l), GRID_COLOR);
                draw_line_3d(Vec3::new(0.0, lift, t), Vec3::new(l, lift, t), GRID_COLOR);
            }
        }
    }

    // Border: four flat strips just outside the world, plus a crisp 1-pixel
    // line on the edge itself so it stays visible when the strips are tiny.
    let w = (l * 0.004).max(0.05);
    let y = 2.0 * lift;
    let strips = [
        // (corner, along, across)
        (
            Vec3::new(-w, y, -w),
            Vec3::new(l + 2.0 * w, 0.0, 0.0),
            Vec3::new(0.0, 0.0, w),
        ),
        (
            Vec3::new(-w, y, l),
            Vec3::new(l + 2.0 * w, 0.0, 0.0),
            Vec3::new(0.0, 0.0, w),
        ),
        (
            Vec3::new(-w, y, 0.0),
            Vec3::new(0.0, 0.0, l),
            Vec3::new(w, 0.0, 0.0),
        ),
        (
            Vec3::new(l, y, 0.0),
            Vec3::new(0.0, 0.0, l),
            Vec3::new(w, 0.0, 0.0),
        ),
    ];
    for (corner, along, across) in strips {
        draw_affine_parallelogram(corner, along, across, None, BORDER_COLOR);
    }
    let corners = [
        Vec3::new(0.0, y, 0.0),
        Vec3::new(l, y, 0.0),
        Vec3::new(l, y, l),
        Vec3::new(0.0, y, l),
    ];
    for i in 0..4 {
        draw_line_3d(corners[i], corners[(i + 1) % 4], BORDER_COLOR);
    }
}
