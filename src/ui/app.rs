//! The window's frame loop: input → simulation step → world and units →
//! overlay, plus the `--screenshot` / `--frames` exits.

use std::path::PathBuf;
use std::time::Instant;

use glam::{Vec3, Vec4};
use macroquad::prelude::*;

use crate::alloc_count;
use crate::bench;
use crate::render::{
    draw_world, load_unit_mesh, save_screenshot, OrbitCamera, UnitInstance, UnitRenderer,
};
use crate::sim::{Settings, Simulation};
use crate::spatial::{Kernel, Query, Strategy};
use crate::ui::overlay::UNITS_RANGE;
use crate::ui::{FrameStats, Overlay, ViewOptions};

/// Start-up options of the window.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// Initial settings (from the command line).
    pub settings: Settings,
    /// Write a PNG of the screen after the last frame and exit.
    pub screenshot: Option<PathBuf>,
    /// Exit after this many frames (default 60 when `screenshot` is set, else run until closed).
    pub frames: Option<u64>,
    /// Unit (stable id) selected at start, as if clicked; the camera starts close to it.
    pub select: Option<u32>,
}

/// Longest a frame's naive pass may take before the overlay refuses Naive, seconds.
pub const NAIVE_BUDGET_S: f64 = 1.0;
/// Most neighbor pairs per frame (estimated for a uniform world) before the
/// radius is lowered: keeps the result buffers under ~200 MB and frames interactive.
pub const PAIR_BUDGET: f64 = 40e6;

const TEAM: [[f32; 3]; 2] = [[70.0, 140.0, 255.0], [255.0, 150.0, 50.0]];
const TEAM_HOT: [[f32; 3]; 2] = [[200.0, 245.0, 255.0], [255.0, 50.0, 40.0]];
const SELECTED: [u8; 4] = [255, 255, 255, 255];
const NEIGHBOR: [u8; 4] = [255, 230, 60, 255];

/// Runs the window until it is closed (or until `frames`), returning the
/// process exit code: 0, or 1 after printing a message when the mesh, the
/// shaders or the screenshot fail.
pub async fn run(opts: AppOptions) -> i32 {
    let mut settings = opts.settings.clone();
    settings.kernel = settings.kernel.or_scalar();
    let mesh = match load_unit_mesh() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: unit mesh: {e}");
            return 1;
        }
    };
    let mut renderer = match UnitRenderer::new(&mesh, settings.units.max(UNITS_RANGE.1)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: render pipeline: {e}");
            return 1;
        }
    };
    egui_macroquad::cfg(|ctx| ctx.set_pixels_per_point(screen_dpi_scale()));

    // Cost of one naive pair test per kernel, for the Naive budget guard.
    let pair_cost: Vec<(Kernel, f64)> = Kernel::available()
        .map(|k| {
            (
                k,
                bench::naive_seconds_per_pair(k, settings.seed, settings.workload),
            )
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let mut sim = Simulation::new(&settings);
    let mut world = sim.world;
    let aspect = || screen_width() / screen_height().max(1.0);
    let mut camera = OrbitCamera::looking_at_world(world);
    camera.frame_world_for_aspect(world, aspect());
    // A unit selected on the command line: look at it from close by.
    if let Some(i) = opts
        .select
        .and_then(|id| sim.units.id.iter().position(|&u| u == id))
    {
        camera.target = Vec3::new(sim.units.x[i], 0.0, sim.units.z[i]);
        camera.distance = 8.0 * settings.radius;
    }
    let mut overlay = Overlay::new(settings.units);
    let mut view = ViewOptions::default();
    let mut stats = FrameStats {
        stream_bytes: renderer.vertex_stream_bytes(),
        mesh_vertices: renderer.vertex_count(),
        mesh_triangles: renderer.index_count() / 3,
        cores,
        ..Default::default()
    };
    let mut instances: Vec<UnitInstance> = Vec::with_capacity(settings.units);
    let mut pick_buf: Vec<u32> = Vec::new();
    // Selected unit by stable id (its index changes when the units are reordered).
    let mut selected_id: Option<u32> = opts.select;
    // The camera follows a unit selected on the command line until it is deselected.
    let mut follow = opts.select.is_some();
    let mut selected: Option<usize> = None;
    let mut press_at: Option<Vec2> = None;
    let (mut egui_pointer, mut egui_keyboard) = (false, false);
    let mut notice: Option<(String, f64)> = None;
    let last_frame = opts.frames.or(opts.screenshot.as_ref().map(|_| 60));
    let mut frame: u64 = 0;

    loop {
        frame += 1;
        // ---- input -------------------------------------------------------
        if !egui_keyboard {
            let before = (settings.units, settings.workload, settings.seed);
            shortcuts(
                &mut settings,
                &mut view,
                &mut selected_id,
                cores,
                &mut camera,
                world,
                aspect(),
            );
            if is_key_pressed(KeyCode::R)
                || before != (settings.units, settings.workload, settings.seed)
            {
                sim.respawn(&settings);
                overlay.clear_history();
                selected = None;
                selected_id = None;
            }
        }
        camera.handle_input(!egui_pointer, !egui_keyboard);
        if !egui_pointer {
            let m = Vec2::from(mouse_position());
            if is_mouse_button_pressed(MouseButton::Left) {
                press_at = Some(m);
            }
            if is_mouse_button_released(MouseButton::Left) {
                if let Some(p) = press_at.take() {
                    if p.distance(m) < 5.0 {
                        selected = pick(&sim, &camera, aspect(), m, settings.kernel, &mut pick_buf);
                        follow = false;
                        selected_id = selected.map(|i| sim.units.id[i]);
                    }
                }
            }
        }

        // ---- Naive budget guard -----------------------------------------
        let t_pair = pair_cost
            .iter()
            .find(|(k, _)| *k == settings.kernel)
            .map_or(1e-9, |&(_, t)| t);
        stats.naive_limit =
            (NAIVE_BUDGET_S * settings.threads.max(1) as f64 / t_pair).sqrt() as usize;
        if settings.strategy == Strategy::Naive && settings.units > stats.naive_limit {
            settings.strategy = Strategy::Grid;
            notice = Some((
                format!(
                    "Naive refused: {} units would take about {:.1} s per frame with {} (limit ≈ {}). Switched to Grid.",
                    settings.units,
                    t_pair * (settings.units as f64).powi(2) / settings.threads.max(1) as f64,
                    settings.kernel.name(),
                    stats.naive_limit
                ),
                get_time() + 6.0,
            ));
        }

        // ---- pair budget guard -------------------------------------------
        let n = settings.units as f64;
        let density = n / (sim.world as f64 * sim.world as f64).max(1.0);
        let pairs = n * density * std::f64::consts::PI * (settings.radius as f64).powi(2);
        if pairs > PAIR_BUDGET {
            let r_max = (PAIR_BUDGET / (n * density * std::f64::consts::PI)).sqrt() as f32;
            notice = Some((
                format!(
                    "Radius {:.1} would find about {:.0} million pairs per frame at {} units; lowered to {:.1}.",
                    settings.radius,
                    pairs / 1e6,
                    settings.units,
                    r_max
                ),
                get_time() + 6.0,
            ));
            settings.radius = r_max.max(1.0);
        }

        // ---- simulation --------------------------------------------------
        let allocs = alloc_count::allocations();
        let dt = get_frame_time().min(0.1);
        stats.step = sim.step(dt, &settings);
        stats.step_allocations = alloc_count::allocations() - allocs;
        stats.units = sim.units.len();
        stats.world = sim.world;
        if sim.world != world {
            world = sim.world;
            camera.frame_world_for_aspect(world, aspect());
            overlay.sync_units(settings.units);
        }
        selected = selected_id.and_then(|id| match selected {
            Some(i) if sim.units.id.get(i) == Some(&id) => Some(i),
            _ => sim.units.id.iter().position(|&u| u == id),
        });
        if selected.is_none() {
            selected_id = None;
            follow = false;
        }
        if let (true, Some(i)) = (follow, selected) {
            camera.target = Vec3::new(sim.units.x[i], 0.0, sim.units.z[i]);
        }

        // ---- draw --------------------------------------------------------
        clear_background(Color::from_rgba(18, 20, 26, 255));
        set_camera(&camera.macroquad_camera(aspect()));
        draw_world(
            world,
            view.show_grid
                .then_some(stats.step.cell_used.unwrap_or(settings.cell_size)),
        );
        if let Some(i) = selected {
            draw_circle_3d(sim.units.x[i], sim.units.z[i], settings.radius);
        }
        let t_render = Instant::now();
        pack_instances(&sim, selected, view.unit_scale, &mut instances);
        renderer.draw(camera.view_proj(aspect()), &instances);
        stats.render_s = t_render.elapsed().as_secs_f64();
        set_default_camera();

        stats.fps = get_fps();
        stats.selected = selected.map(|i| {
            (
                sim.units.id[i] as usize,
                sim.results().neighbors(i).len(),
                sim.units.enemies[i],
            )
        });
        stats.notice = match &notice {
            Some((text, until)) if get_time() < *until => Some(text.clone()),
            _ => None,
        };
        overlay.record(&stats);
        let mut actions = Default::default();
        egui_macroquad::ui(|ctx| {
            actions = overlay.show(ctx, &mut settings, &mut view, &stats);
            egui_pointer = ctx.wants_pointer_input() || ctx.is_pointer_over_area();
            egui_keyboard = ctx.wants_keyboard_input();
        });
        egui_macroquad::draw();
        if actions.respawn {
            sim.respawn(&settings);
            overlay.clear_history();
            selected = None;
            selected_id = None;
        }
        if actions.reset_camera {
            camera = OrbitCamera::looking_at_world(world);
            camera.frame_world_for_aspect(world, aspect());
        }
        if actions.deselect {
            selected = None;
            selected_id = None;
        }

        if last_frame.is_some_and(|n| frame >= n) {
            if let Some(path) = &opts.screenshot {
                if let Err(e) = save_screenshot(path) {
                    eprintln!("error: --screenshot: {e}");
                    return 1;
                }
                println!("wrote {} after {frame} frames", path.display());
            }
            return 0;
        }
        next_frame().await;
    }
}

/// Keyboard shortcuts (see [`crate::ui::overlay::SHORTCUTS`]).
fn shortcuts(
    s: &mut Settings,
    view: &mut ViewOptions,
    selected: &mut Option<u32>,
    cores: usize,
    camera: &mut OrbitCamera,
    world: f32,
    aspect: f32,
) {
    let strategies = [KeyCode::Key1, KeyCode::Key2, KeyCode::Key3];
    for (key, st) in strategies.into_iter().zip(Strategy::ALL) {
        if is_key_pressed(key) {
            s.strategy = st;
        }
    }
    if is_key_pressed(KeyCode::K) {
        let avail: Vec<Kernel> = Kernel::available().collect();
        let i = avail.iter().position(|k| *k == s.kernel).unwrap_or(0);
        s.kernel = avail[(i + 1) % avail.len()];
    }
    if is_key_pressed(KeyCode::T) {
        s.threads = s.threads % cores.max(1) + 1;
    }
    if is_key_pressed(KeyCode::Space) {
        s.paused = !s.paused;
    }
    if is_key_pressed(KeyCode::LeftBracket) {
        s.cell_size = (s.cell_size / 1.25).max(0.5);
    }
    if is_key_pressed(KeyCode::RightBracket) {
        s.cell_size = (s.cell_size * 1.25).min(200.0);
    }
    if is_key_pressed(KeyCode::Minus) {
        s.radius = (s.radius / 1.25).max(1.0);
    }
    if is_key_pressed(KeyCode::Equal) {
        s.radius = (s.radius * 1.25).min(100.0);
    }
    if is_key_pressed(KeyCode::G) {
        view.show_grid = !view.show_grid;
    }
    if is_key_pressed(KeyCode::H) || is_key_pressed(KeyCode::Tab) {
        view.show_overlay = !view.show_overlay;
    }
    if is_key_pressed(KeyCode::F1) {
        view.show_help = !view.show_help;
    }
    if is_key_pressed(KeyCode::Escape) {
        *selected = None;
    }
    if is_key_pressed(KeyCode::C) {
        *camera = OrbitCamera::looking_at_world(world);
        camera.frame_world_for_aspect(world, aspect);
    }
}

/// Fills `out` with one instance per unit: heading from the velocity, color
/// from the team, shifted toward a "hot" color by enemies in range; the
/// selected unit and its neighbors are highlighted. Reuses `out`'s capacity.
fn pack_instances(
    sim: &Simulation,
    selected: Option<usize>,
    scale: f32,
    out: &mut Vec<UnitInstance>,
) {
    let u = &sim.units;
    out.clear();
    out.extend((0..u.len()).map(|i| {
        let t = (u.enemies[i].min(12) as f32) / 12.0;
        let team = (u.team[i] & 1) as usize;
        let c = |k: usize| (TEAM[team][k] + (TEAM_HOT[team][k] - TEAM[team][k]) * t) as u8;
        UnitInstance {
            x: u.x[i],
            z: u.z[i],
            heading: u.vz[i].atan2(u.vx[i]),
            scale,
            color: [c(0), c(1), c(2), 255],
        }
    }));
    if let Some(i) = selected {
        for &j in sim.results().neighbors(i) {
            out[j as usize].color = NEIGHBOR;
        }
        out[i].color = SELECTED;
        out[i].scale = scale * 1.5;
    }
}

/// The unit nearest to the ground point under the mouse (within 8 world
/// units), found with the simulation's own spatial index.
fn pick(
    sim: &Simulation,
    camera: &OrbitCamera,
    aspect: f32,
    mouse: Vec2,
    kernel: Kernel,
    buf: &mut Vec<u32>,
) -> Option<usize> {
    let inv = camera.view_proj(aspect).inverse();
    let ndc = Vec2::new(
        2.0 * mouse.x / screen_width() - 1.0,
        1.0 - 2.0 * mouse.y / screen_height(),
    );
    let unproject = |z: f32| {
        let p = inv * Vec4::new(ndc.x, ndc.y, z, 1.0);
        p.truncate() / p.w
    };
    let (a, b): (Vec3, Vec3) = (unproject(-1.0), unproject(1.0));
    if (a.y - b.y).abs() < 1e-6 {
        return None;
    }
    let t = a.y / (a.y - b.y);
    let hit = a + (b - a) * t;
    if !hit.is_finite() {
        return None;
    }
    buf.clear();
    sim.index().query(
        sim.units.points(),
        &Query::new(hit.x, hit.z, 8.0),
        kernel,
        buf,
    );
    let u = &sim.units;
    buf.iter().map(|&j| j as usize).min_by(|&i, &j| {
        let d = |k: usize| (u.x[k] - hit.x).powi(2) + (u.z[k] - hit.z).powi(2);
        d(i).total_cmp(&d(j))
    })
}

/// A circle of radius `r` on the ground around `(x, z)`.
fn draw_circle_3d(x: f32, z: f32, r: f32) {
    const SEGMENTS: usize = 96;
    let y = 0.15;
    let color = Color::from_rgba(255, 230, 60, 255);
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
