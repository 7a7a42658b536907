//! The window's frame loop.
//!
//! One frame (`App::frame`), in this order so that input is never a frame
//! late and never reaches two places:
//!
//! 1. `App::overlay_pass`: the egui overlay runs first, on this frame's
//!    events, edits the settings and says whether it owns the pointer and the
//!    keyboard this frame;
//! 2. `App::input`: keys through the one binding table ([`keys`]), mouse
//!    through the [`pointer::PointerRouter`] (a press on the overlay never
//!    reaches the camera or picking);
//! 3. `App::settle`: the budget guards ([`crate::sim::budget::settle`]),
//!    respawn, and a restart of the timing means when the work changed;
//! 4. when the last picture is complete: `App::step` (one simulation step;
//!    the selection follows its unit) and `App::begin_picture` (ground,
//!    grid, query circle and the instances of this step);
//! 5. `App::draw`: draws the picture within [`RENDER_BUDGET_S`] (all of it
//!    when it fits, else a slice per refresh: [`ProgressiveScene`]), shows
//!    the last complete picture, then the overlay on top;
//! 6. `App::finish`: frame statistics, the screenshot and the exit.
//!
//! Submodules hold the pieces that are pure and tested headless: [`keys`],
//! [`pointer`](mod@pointer), [`selection`], [`stats`].

pub mod keys;
pub mod pointer;
pub mod render_bench;
pub mod selection;
pub mod stats;

use std::path::PathBuf;
use std::time::Instant;

use glam::{Vec2, Vec3};
use macroquad::prelude::*;

use crate::alloc_count;
use crate::format::thousands;
use crate::render::mesh::asset_dirs;
use crate::render::{
    draw_query_circle, draw_world, load_unit_kind, save_screenshot, visible_units, CameraInput,
    EguiHost, OrbitCamera, Packer, ProgressiveScene, UiClaims, UnitRenderer,
};
use crate::render::{
    draw_searched_cells, ground_lift, CellHeatmap, ColorMode, Highlight, Lod, NormalPrecision,
    UnitMeshKind, VertexLayout, IMPOSTOR_PIXELS,
};
use crate::scenario::{self, Scenario};
use crate::sim::budget::{self, Budget, GuardNotice, NaiveCost};
use crate::sim::inspect::Inspection;
use crate::sim::sweep::{CellSweep, SWEEP_FRAME_LIMIT_S};
use crate::sim::{memory, Layout, Pass, Settings, Simulation, Slicing, SpawnKey, StepProgress};
use crate::spatial::{Kernel, Query, Strategy};
use crate::ui::memory_view::{self, MemoryView};
use crate::ui::overlay::{radius_top, CELL_MAX, RADIUS_RANGE, UNITS_RANGE};
use crate::ui::sweep::SweepAction;
use crate::ui::{Overlay, OverlayActions, ViewOptions};
use keys::Action;
use pointer::{PointerFrame, PointerRouter};
use selection::Selection;
use stats::{ChurnMeter, FpsMeter, FrameStats, PhaseSample, SelectedUnit};

/// Start-up options of the window.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// Initial settings (from the command line).
    pub settings: Settings,
    /// Write a PNG of the screen after the last frame and exit.
    pub screenshot: Option<PathBuf>,
    /// Exit after this many frames (default 60 when `screenshot` is set, else run until closed).
    pub frames: Option<u64>,
    /// Unit (stable id) selected at start, as if clicked; the camera starts close to it and follows it.
    pub select: Option<u32>,
    /// How units are colored at start.
    pub color: ColorMode,
    /// Start with the cell occupancy heat map on.
    pub cell_occupancy: bool,
    /// Start with the memory view open.
    pub memory_view: bool,
    /// Start the cell-size sweep after the first step, as the overlay's button does.
    pub sweep: bool,
    /// Vertex layout of the units at start.
    pub vertex_layout: VertexLayout,
    /// Normal precision of the compressed layout at start.
    pub normal_precision: NormalPrecision,
    /// Unit mesh at start.
    pub unit_mesh: UnitMeshKind,
    /// The scenario loaded with `--scenario` (its file and values), already
    /// applied to `settings`.
    pub scenario: Option<(PathBuf, Scenario)>,
}

/// CPU seconds of unit drawing per window refresh; a picture that needs more
/// is drawn in slices over several refreshes ([`ProgressiveScene`]), so input
/// and the overlay stay responsive whatever the unit count.
pub const RENDER_BUDGET_S: f64 = 0.045;
/// Naive queries per refresh when the cost model has no figure for the
/// kernel and layout (not expected: every pair is measured at start).
const NAIVE_FALLBACK_SLICE: usize = 1_000;
/// Respawns and layout changes at this many units or more run on a worker
/// thread ([`App::start_preparing`]): 100,000 units take about 20 ms to
/// store as AoS and 80 ms as AoS pointers on the development machine.
const WORKER_UNITS: usize = 100_000;
/// Seconds of instance packing per refresh ([`App::pack_picture`]).
const PACK_BUDGET_S: f64 = 0.05;
/// Units packed between two looks at the clock.
const PACK_CHUNK: usize = 16_384;
/// A step call longer than this (seconds) at [`WORKER_UNITS`] or more
/// makes the next call run on a worker thread, so that pieces that cannot
/// be split (reordering a million AoS objects takes about 300 ms) never
/// hold up a refresh.
const WORKER_CALL_S: f64 = 0.06;
/// Queries of the first slice of a Grid frame after its settings changed,
/// at more units than this: a million units through AoS pointers take
/// about 330 ms of queries, which one refresh must not wait for.
const GRID_FIRST_SLICE: usize = 100_000;
/// Seconds of work (step, picture start, drawing) a refresh aims at: the
/// picture's slice gets what the step and the picture's start left, so that
/// with the overlay and the present a refresh stays under 250 ms.
const REFRESH_WORK_S: f64 = 0.15;
/// A step call longer than this (seconds) leaves the picture's start to the
/// next refresh: packing a million instances takes 40 to 400 ms depending on
/// the layout, and one refresh should not pay for both.
const PICTURE_AFTER_STEP_S: f64 = 0.05;
/// Longest simulated step, seconds of real time (slower pictures slow the simulation down).
const MAX_STEP_S: f32 = 0.1;
/// Distance from a click to the farthest unit it may pick, world units.
const PICK_RADIUS: f32 = 8.0;
/// Seconds a passing message stays in the overlay.
const STATUS_S: f64 = 6.0;
/// Background color.
const BACKGROUND: Color = Color::new(0.07, 0.08, 0.1, 1.0);

/// Runs the window until it is closed (or until `opts.frames`), returning the
/// process exit code: 0, or 1 after printing a message when the mesh, the
/// shaders or the screenshot fail.
pub async fn run(opts: AppOptions) -> i32 {
    let mut app = match App::new(opts) {
        Ok(app) => app,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    loop {
        if let Some(code) = app.frame() {
            return code;
        }
        next_frame().await;
    }
}

/// Everything the window keeps between frames.
struct App {
    settings: Settings,
    view: ViewOptions,
    sim: Simulation,
    world: f32,
    renderer: UnitRenderer,
    scene: ProgressiveScene,
    egui: EguiHost,
    camera: OrbitCamera,
    overlay: Overlay,
    stats: FrameStats,
    fps: FpsMeter,
    selection: Selection,
    pointer: PointerRouter,
    notices: Vec<GuardNotice>,
    naive_cost: NaiveCost,
    budget: Budget,
    /// Respawn at the next step (R or the overlay's button).
    respawn: bool,
    /// Real time since the last step, seconds.
    since_step: f32,
    /// Unit count, workload and seed of the units the simulation holds.
    spawned: SpawnKey,
    /// The picture of the last step was completed in this frame.
    picture_done: bool,
    /// The work changed while a picture was in progress: restart the means
    /// once its timings are recorded.
    restart_after_picture: bool,
    pick_buf: Vec<u32>,
    /// The cell-size sweep, running or finished (shown until closed).
    sweep: Option<CellSweep>,
    /// Start the sweep after the next step (`--sweep`).
    sweep_at_launch: bool,
    /// The units per cell of the last step, when the view shows them.
    heatmap: CellHeatmap,
    /// The selected unit's query of the last step, and its storage index then.
    inspection: Inspection,
    inspected: Option<usize>,
    /// Deaths and spawns per second of the `battle` workload.
    churn: ChurnMeter,
    /// The reads of the query drawn in the memory view (kept for its buffers).
    trace: memory::QueryTrace,
    frame: u64,
    last_frame: Option<u64>,
    screenshot: Option<PathBuf>,
    /// F12 was pressed: save a PNG at the end of this frame.
    shot_requested: bool,
    /// The unit mesh `renderer` was built for.
    mesh_kind: UnitMeshKind,
    /// Storage indices of the units in the grid cells under the view.
    visible: Vec<u32>,
    /// Units of the picture being drawn left out with their grid cells.
    grid_culled: usize,
    /// The files of `assets/scenarios/`, in the overlay's order.
    scenario_files: Vec<PathBuf>,
    /// The file of the loaded scenario.
    scenario_file: Option<PathBuf>,
    /// Naive queries per refresh ([`Simulation::step_sliced`]); `usize::MAX`
    /// for the other strategies.
    query_slice: usize,
    /// Begin a picture after the next step even if it completes no frame
    /// (the units were spawned and none is drawn yet).
    needs_picture: bool,
    /// The picture in progress shows a completed step (not only a spawn),
    /// so its timings go into the history.
    picture_of_step: bool,
    /// A picture to begin at the next refresh (the step before it was
    /// long), and whether it shows a completed step.
    deferred_picture: Option<bool>,
    /// The worker thread that has the simulation, if one has it
    /// ([`App::start_worker`]).
    worker: Option<Worker>,
    /// Seconds of the last step call ([`Simulation::step_sliced`]).
    last_call_s: f64,
    /// The picture whose instances are being packed, if one is.
    packing: Option<Packing>,
    /// `--select`'s unit, selected once the worker has spawned the units.
    select_at_start: Option<u32>,
    /// A click not yet picked: the ground point under it (`None` inside:
    /// the click missed the ground), picked when the simulation is here.
    click_at: Option<Option<Vec3>>,
}

/// A picture begun by [`App::begin_picture`] whose instances are still
/// being packed ([`App::pack_picture`]), with the view it was begun for.
struct Packing {
    packer: Packer,
    /// The next index of [`App`]'s visible units to pack.
    next: usize,
    camera: OrbitCamera,
    aspect: f32,
    view_proj: glam::Mat4,
    lod: Lod,
    /// Grid lines at this cell size, if shown.
    grid: Option<f32>,
    /// The selected unit's query circle: center x, z and radius.
    circle: Option<(f32, f32, f32)>,
    /// The cells the selected unit's query searched.
    block: Option<crate::sim::inspect::SearchedBlock>,
}

/// A worker thread that has the simulation: it sends the simulation back
/// when its job is done and returns a step call's progress and seconds.
struct Worker {
    handle: std::thread::JoinHandle<Option<(StepProgress, f64)>>,
    sim: std::sync::mpsc::Receiver<Simulation>,
    since: Instant,
    what: String,
    /// The context of a step call, `None` for spawning.
    step: Option<StepContext>,
}

/// What [`App::after_step`] needs from before a step call.
#[derive(Clone, Copy, Debug)]
struct StepContext {
    /// The units were spawned anew for this step.
    respawned: bool,
    /// The cell size the sweep measures, if it runs.
    sweep_cell: Option<f32>,
    /// The allocation count before the call, when it ran in this thread.
    allocs: Option<u64>,
}

/// The first `spatial-query-lab-NNN.png` (NNN from 001) that does not exist
/// in `dir`, or `None` when all 999 do.
pub fn next_screenshot_path(dir: &std::path::Path) -> Option<PathBuf> {
    (1..=999)
        .map(|k| dir.join(format!("spatial-query-lab-{k:03}.png")))
        .find(|p| !p.exists())
}

impl App {
    fn new(opts: AppOptions) -> Result<Self, String> {
        let mut settings = opts.settings;
        settings.kernel = settings.kernel.or_scalar();
        let (mesh, mesh_warning) = load_unit_kind(opts.unit_mesh, &asset_dirs());
        let renderer = UnitRenderer::new(&mesh, settings.units.max(UNITS_RANGE.1))
            .map_err(|e| format!("render pipeline: {e}"))?;
        let egui = EguiHost::new();
        egui.ctx().set_pixels_per_point(screen_dpi_scale());

        let naive_cost = NaiveCost::measure(Kernel::available(), settings.seed, settings.workload);
        let budget = Budget::default();
        let notices = budget::settle(&mut settings, &budget);
        // Many units are spawned on a worker thread once the window runs.
        let big = settings.units >= WORKER_UNITS;
        let sim = if big {
            Simulation::new(&Settings {
                units: 0,
                threads: 1,
                ..settings.clone()
            })
        } else {
            Simulation::new(&settings)
        };
        let selection = Selection::default();
        let camera = framed(sim.world);
        let stats = FrameStats {
            mesh_warning,
            mesh_vertices: renderer.vertex_count(),
            normal_errors: NormalPrecision::ALL.map(|p| {
                let e = renderer.normal_errors(p);
                (e.max, e.mean)
            }),
            mesh_triangles: renderer.index_count() / 3,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            help: keys::help_rows(),
            ..Default::default()
        };
        let mut app = App {
            spawned: settings.spawn_key(),
            world: sim.world,
            settings,
            view: ViewOptions {
                color_mode: opts.color,
                vertex_layout: opts.vertex_layout,
                normal_precision: opts.normal_precision,
                unit_mesh: opts.unit_mesh,
                cell_occupancy: opts.cell_occupancy,
                show_memory: opts.memory_view,
                ..ViewOptions::default()
            },
            sim,
            renderer,
            scene: ProgressiveScene::default(),
            egui,
            camera,
            overlay: Overlay::default(),
            stats,
            fps: FpsMeter::default(),
            selection,
            pointer: PointerRouter::default(),
            notices: Vec::new(),
            naive_cost,
            budget,
            respawn: false,
            since_step: 0.0,
            picture_done: false,
            restart_after_picture: false,
            pick_buf: Vec::new(),
            sweep: None,
            sweep_at_launch: opts.sweep,
            heatmap: CellHeatmap::default(),
            inspection: Inspection::default(),
            inspected: None,
            churn: ChurnMeter::default(),
            trace: memory::QueryTrace::default(),
            frame: 0,
            last_frame: opts.frames.or(opts.screenshot.as_ref().map(|_| 60)),
            screenshot: opts.screenshot,
            shot_requested: false,
            mesh_kind: opts.unit_mesh,
            visible: Vec::new(),
            grid_culled: 0,
            scenario_files: Vec::new(),
            scenario_file: None,
            query_slice: usize::MAX,
            needs_picture: true,
            picture_of_step: false,
            deferred_picture: None,
            worker: None,
            last_call_s: 0.0,
            packing: None,
            select_at_start: None,
            click_at: None,
        };
        app.list_scenarios();
        if big {
            // `--select` waits for the units.
            app.select_at_start = opts.select;
            app.start_preparing(false);
        } else if let Some(id) = opts.select {
            app.select_start(id);
        }
        if let Some((path, sc)) = opts.scenario {
            app.stats.scenario = Some((sc.name, sc.description));
            app.scenario_file = Some(path);
        }
        app.add_notices(notices);
        app.update_limits();
        Ok(app)
    }

    /// One frame; returns the exit code when the program should end.
    fn frame(&mut self) -> Option<i32> {
        self.frame += 1;
        let started = Instant::now();
        let before = self.settings.clone();
        // The screenshot's last frame runs the overlay once, after the step,
        // so it shows this frame's numbers.
        let last = self.last_frame.is_some_and(|n| self.frame >= n);
        let (actions, claims) = if last {
            Default::default()
        } else {
            self.overlay_pass()
        };
        self.input(claims);
        self.overlay_actions(actions);
        self.settle(&before);
        self.since_step += get_frame_time();
        if self.packing.is_some() {
            // A picture being packed: the simulation waits for it (the
            // screenshot's last frame packs the rest at once).
            self.pack_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
        } else if self.scene.is_idle() {
            // A new picture after each complete frame, and of the new units
            // at once after a spawn (a sliced frame completes only after
            // several refreshes). After a long step the picture begins at
            // the next refresh, so no refresh pays for both.
            let t = Instant::now();
            let picture = match self.deferred_picture.take() {
                // Not while a worker has the simulation: the stand-in has no units.
                Some(of_step) if self.worker.is_some() => {
                    self.deferred_picture = Some(of_step);
                    None
                }
                Some(of_step) => Some(of_step),
                None => {
                    let done = self.step();
                    let wanted = self.needs_picture || done;
                    if !wanted || self.worker.is_some() {
                        // A spawn's picture waits for the worker (a completed
                        // frame never leaves the simulation with one).
                        None
                    } else if t.elapsed().as_secs_f64() > PICTURE_AFTER_STEP_S {
                        self.needs_picture = false;
                        self.deferred_picture = Some(done);
                        None
                    } else {
                        self.needs_picture = false;
                        Some(done)
                    }
                }
            };
            if let Some(of_step) = picture {
                self.picture_of_step = of_step;
                self.begin_picture(if last { f64::INFINITY } else { PACK_BUDGET_S });
            }
        }
        // The picture's slice gets what is left of this refresh's work budget.
        let spent = started.elapsed().as_secs_f64();
        self.draw(RENDER_BUDGET_S.min((REFRESH_WORK_S - spent).max(0.0)));
        if last {
            let _ = self.overlay_pass();
        }
        self.egui.draw();
        self.finish()
    }

    /// Runs the overlay on this frame's input (painted later, in
    /// `App::frame`, on top of the scene).
    fn overlay_pass(&mut self) -> (OverlayActions, UiClaims) {
        self.egui.run_overlay(
            &mut self.overlay,
            &mut self.settings,
            &mut self.view,
            &self.stats,
        )
    }

    /// Keys (unless a text field has focus) and the mouse (what the overlay
    /// does not own): shortcuts, the camera, picking.
    fn input(&mut self, claims: UiClaims) {
        if !claims.keyboard {
            for action in keys::pressed_actions(is_key_pressed) {
                self.apply(action);
            }
        }
        let button = |f: fn(MouseButton) -> bool| {
            [
                f(MouseButton::Left),
                f(MouseButton::Right),
                f(MouseButton::Middle),
            ]
        };
        let frame = PointerFrame {
            pos: Vec2::from(mouse_position()),
            pressed: button(is_mouse_button_pressed),
            released: button(is_mouse_button_released),
            down: button(is_mouse_button_down),
            wheel: mouse_wheel().1,
        };
        let scene = self.pointer.route(&frame, claims.pointer);
        let held = |a: Action| (!claims.keyboard && keys::is_held(a, is_key_down)) as i32 as f32;
        let input = CameraInput {
            orbit_drag: scene.orbit_drag,
            pan_drag: scene.pan_drag,
            wheel: scene.wheel,
            pan_keys: Vec2::new(
                held(Action::PanRight) - held(Action::PanLeft),
                held(Action::PanForward) - held(Action::PanBack),
            ),
            orbit_keys: held(Action::OrbitRight) - held(Action::OrbitLeft),
            dt: get_frame_time(),
        };
        if input.pan_drag != Vec2::ZERO || input.pan_keys != Vec2::ZERO {
            // Panning away from a followed unit means: stop following it.
            self.selection.set_follow(false);
        }
        self.camera.apply_input(&input, screen_height());
        if let Some(at) = scene.click {
            // The ground point under the click, with this refresh's camera;
            // picked now, or once a worker gives the simulation back.
            let ndc = OrbitCamera::screen_to_ndc(at, Vec2::new(screen_width(), screen_height()));
            self.click_at = Some(self.camera.ground_point(aspect(), ndc));
            self.pick_clicked();
        }
    }

    /// Selects the unit nearest to the last click's ground point (or
    /// deselects), unless a worker has the simulation (then it waits).
    fn pick_clicked(&mut self) {
        if self.worker.is_some() {
            return;
        }
        let Some(hit) = self.click_at.take() else {
            return;
        };
        let picked = hit.and_then(|h| self.pick(h));
        let picked = picked.map(|i| (i, self.sim.handle_of(i)));
        self.selection.select_at(picked);
    }

    /// Carries out one key action.
    fn apply(&mut self, action: Action) {
        let s = &mut self.settings;
        match action {
            Action::Strategy(st) => s.strategy = st,
            Action::NextKernel => {
                let avail: Vec<Kernel> = Kernel::available().collect();
                let i = avail.iter().position(|k| *k == s.kernel).unwrap_or(0);
                s.kernel = avail[(i + 1) % avail.len()];
            }
            Action::NextLayout => {
                let all = Layout::ALL;
                let i = all.iter().position(|l| *l == s.layout).unwrap_or(0);
                s.layout = all[(i + 1) % all.len()];
            }
            Action::ToggleVertexLayout => self.view.vertex_layout = self.view.vertex_layout.next(),
            Action::SaveScreenshot => self.shot_requested = true,
            Action::NextUnitMesh => self.view.unit_mesh = self.view.unit_mesh.next(),
            Action::ToggleNormalPrecision => {
                self.view.normal_precision = self.view.normal_precision.next()
            }
            Action::TogglePass => {
                let i = Pass::ALL.iter().position(|p| *p == s.pass).unwrap_or(0);
                s.pass = Pass::ALL[(i + 1) % Pass::ALL.len()];
            }
            Action::NextThreads => s.threads = s.threads % self.stats.cores.max(1) + 1,
            Action::TogglePause => s.paused = !s.paused,
            Action::CellSmaller | Action::CellLarger => {
                s.cell_follows_radius = false;
                s.cell_size = if action == Action::CellSmaller {
                    (s.cell_size / 1.25).max(self.stats.cell_min)
                } else {
                    (s.cell_size * 1.25).min(CELL_MAX.max(s.cell_size))
                };
            }
            Action::RadiusSmaller => s.radius = (s.radius / 1.25).max(RADIUS_RANGE.0.min(s.radius)),
            Action::RadiusLarger => {
                s.radius = (s.radius * 1.25)
                    .min(radius_top(self.stats.radius_max))
                    .max(s.radius);
            }
            Action::CellSweep if self.sweep.is_some() => self.sweep_action(SweepAction::Close),
            Action::CellSweep => self.sweep_action(SweepAction::Start),
            Action::ToggleGrid => self.view.show_grid = !self.view.show_grid,
            Action::NextColorMode => self.view.color_mode = self.view.color_mode.next(),
            Action::ToggleOccupancy => self.view.cell_occupancy = !self.view.cell_occupancy,
            Action::Respawn => self.respawn = true,
            Action::ResetCamera => self.frame_world(),
            Action::ToggleFollow => self.selection.set_follow(!self.selection.follows()),
            Action::ToggleOverlay => self.view.show_overlay = !self.view.show_overlay,
            Action::ToggleHelp => self.view.show_help = !self.view.show_help,
            Action::ToggleMemory => self.view.show_memory = !self.view.show_memory,
            Action::Deselect => self.selection.clear(),
            Action::PanForward
            | Action::PanBack
            | Action::PanLeft
            | Action::PanRight
            | Action::OrbitLeft
            | Action::OrbitRight => {}
        }
    }

    /// Carries out the overlay's requests.
    fn overlay_actions(&mut self, a: OverlayActions) {
        self.respawn |= a.respawn;
        if a.reset_camera {
            self.frame_world();
        }
        if a.deselect {
            self.selection.clear();
        }
        if a.toggle_follow {
            self.selection.set_follow(!self.selection.follows());
        }
        if let Some(k) = a.dismiss.filter(|&k| k < self.notices.len()) {
            self.notices.remove(k);
            self.stats.notices.remove(k);
        }
        if let Some(s) = a.sweep {
            self.sweep_action(s);
        }
        if let Some(path) = a.load_scenario.and_then(|k| self.scenario_files.get(k)) {
            self.load_scenario(&path.clone());
        }
        if a.reload_scenario {
            self.list_scenarios();
            if let Some(path) = self.scenario_file.clone() {
                self.load_scenario(&path);
            }
        }
    }

    /// Finds the scenario files for the overlay's list.
    fn list_scenarios(&mut self) {
        self.scenario_files = scenario::list(&asset_dirs());
        self.stats.scenarios = self
            .scenario_files
            .iter()
            .map(|p| {
                p.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            })
            .collect();
    }

    /// Loads the scenario at `path` into the settings (respawning at the
    /// next step), or shows why it cannot be loaded and changes nothing.
    fn load_scenario(&mut self, path: &std::path::Path) {
        match scenario::load_into(path, &mut self.settings) {
            Ok(sc) => {
                self.respawn = true;
                self.stats.scenario = Some((sc.name, sc.description));
                self.stats.scenario_error = None;
                self.scenario_file = Some(path.to_path_buf());
            }
            Err(e) => {
                self.stats.scenario_error =
                    Some(format!("{e}. The running scenario keeps running."));
            }
        }
    }

    /// Starts, applies or closes the cell-size sweep. A sweep starts from
    /// the last step (the base of its step-time predictions) and may take
    /// [`SWEEP_FRAME_LIMIT_S`] per refresh minus the last picture's drawing;
    /// Naive (no grid) has nothing to sweep.
    fn sweep_action(&mut self, action: SweepAction) {
        match action {
            SweepAction::Start if self.settings.strategy != Strategy::Naive => {
                let limit = SWEEP_FRAME_LIMIT_S - self.stats.render_s.min(RENDER_BUDGET_S);
                let sweep = CellSweep::standard(&self.settings, &self.budget)
                    .with_baseline(&self.stats.step)
                    .with_frame_limit(limit);
                self.sweep = Some(sweep);
            }
            SweepAction::Start => {}
            SweepAction::UseBest => {
                if let Some(best) = self.sweep.as_ref().and_then(CellSweep::best) {
                    self.settings.cell_size = best.cell_size;
                    self.settings.cell_follows_radius = false;
                }
                self.sweep = None;
            }
            SweepAction::Close => self.sweep = None,
        }
        self.stats.sweep.clone_from(&self.sweep);
    }

    /// After this frame's edits: the budget guards, and a restart of the
    /// timing means when the work changed (respawning waits for the next step).
    fn settle(&mut self, before: &Settings) {
        let notices = budget::settle(&mut self.settings, &self.budget);
        self.add_notices(notices);
        if let Some(sw) = self.sweep.as_mut().filter(|sw| !sw.is_done()) {
            if !sw.matches(&self.settings) {
                sw.stop("a setting other than the cell size changed");
                self.stats.sweep.clone_from(&self.sweep);
            }
        }
        if !self.settings.same_work(before) || self.respawn {
            self.update_limits();
            // A picture in progress belongs to the old work: its timings are
            // recorded when it completes, and the means restart after them.
            if self.scene.is_idle() {
                self.stats.history.restart();
            } else {
                self.restart_after_picture = true;
            }
        }
    }

    /// Keeps the newest notice of each kind, in arrival order.
    fn add_notices(&mut self, notices: Vec<GuardNotice>) {
        if notices.is_empty() {
            return;
        }
        for n in notices {
            self.notices.retain(|o| o.kind() != n.kind());
            self.notices.push(n);
        }
        self.stats.notices = self.notices.iter().map(ToString::to_string).collect();
    }

    /// The limits the overlay's controls offer at the current settings.
    fn update_limits(&mut self) {
        let s = &self.settings;
        let threads = s.threads.max(1);
        // Frames whose queries take longer than the slice budget are
        // spread over refreshes: for Naive the model's queries per refresh
        // to start with; for Grid whole frames until one is measured too
        // slow; then adapted to the measured slices ([`App::adapt_slice`]).
        (self.query_slice, self.stats.naive_estimate_s) = if s.strategy == Strategy::Naive {
            let per_slice = self.naive_cost.slice_queries(
                s.kernel,
                s.layout,
                s.units,
                threads,
                self.budget.slice_s,
            );
            (
                per_slice.unwrap_or(NAIVE_FALLBACK_SLICE),
                self.naive_cost
                    .frame_seconds(s.kernel, s.layout, s.units, threads),
            )
        } else if s.strategy == Strategy::Grid && s.units > GRID_FIRST_SLICE {
            // Not measured yet at these settings: slices from the start,
            // growing 4x per call until the frame fits one refresh.
            (GRID_FIRST_SLICE, None)
        } else {
            (usize::MAX, None)
        };
        let world = s.world_edge();
        self.stats.radius_max = budget::max_radius(s.units, world, &self.budget);
        self.stats.cell_min =
            budget::min_cell_size(s.strategy, s.units, world, s.radius, &self.budget).0;
    }

    /// Sets the queries per refresh to what the last call's rate (`queries`
    /// queries in `slice_s` seconds) fits in the slice budget, moving by at
    /// most 4x per call, so the slices track this machine, layout and unit count
    /// rather than the cost model's small sample. A Naive or Grid frame
    /// stepped whole whose queries took longer than the budget starts the
    /// slicing; slices that grow past the unit count end it.
    fn adapt_slice(&mut self, slice_s: f64, queries: usize) {
        if slice_s.is_nan() || slice_s <= 0.0 || queries == 0 {
            return;
        }
        let target = self.budget.slice_s;
        let sliceable = matches!(self.settings.strategy, Strategy::Naive | Strategy::Grid);
        if self.query_slice == usize::MAX {
            if sliceable && slice_s > target {
                self.query_slice = ((queries as f64 * target / slice_s) as usize).max(1);
            }
            return;
        }
        // The rate of this call, within 4x of the current size per call.
        let cur = self.query_slice as f64;
        let next = (queries as f64 * target / slice_s).clamp(cur * 0.25, cur * 4.0) as usize;
        self.query_slice =
            if next >= queries.max(self.sim.len()) && self.settings.strategy != Strategy::Naive {
                usize::MAX
            } else {
                next.max(1)
            };
    }

    /// Selects unit `id` as `--select` does: as if clicked, followed, and
    /// looked at from close by.
    fn select_start(&mut self, id: u32) {
        self.selection.select(id, true);
        let sim = &self.sim;
        if let Some(i) = self.selection.resolve(sim.handles(), |h| sim.resolve(h)) {
            let (x, z) = sim.store().pos(i);
            self.camera.target = Vec3::new(x, 0.0, z);
            self.camera.distance = 8.0 * self.settings.radius;
        }
    }

    /// An empty simulation that stands in while a worker thread has the
    /// real one (one thread: no pool is built for it).
    fn stand_in(&self) -> Simulation {
        Simulation::new(&Settings {
            units: 0,
            threads: 1,
            ..self.settings.clone()
        })
    }

    /// Hands the simulation to a worker thread that runs `job` on it; the
    /// window keeps showing the last picture and answering until
    /// [`App::step`] takes the simulation back. `what` is shown in the
    /// overlay while it works; `step` is the context of a step call.
    fn start_worker(
        &mut self,
        what: String,
        step: Option<StepContext>,
        job: impl FnOnce(&mut Simulation) -> Option<(StepProgress, f64)> + Send + 'static,
    ) {
        let stand_in = self.stand_in();
        let mut sim = std::mem::replace(&mut self.sim, stand_in);
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("simulation".to_string())
            .spawn(move || {
                let result = job(&mut sim);
                let _ = tx.send(sim);
                result
            });
        match spawned {
            Ok(handle) => {
                self.worker = Some(Worker {
                    handle,
                    sim: rx,
                    since: Instant::now(),
                    what,
                    step,
                });
            }
            Err(e) => {
                // No thread: start over in this one, once.
                self.stats.status = Some((
                    format!(
                        "could not start a worker thread ({e}); respawned in the window's thread"
                    ),
                    get_time() + STATUS_S,
                ));
                self.sim = Simulation::new(&self.settings);
            }
        }
    }

    /// Spawns or re-stores the units on a worker thread (`respawn`: anew
    /// even with the same settings); spawning a million units takes about
    /// 35 ms as SoA and up to a second through AoS pointers.
    fn start_preparing(&mut self, respawn: bool) {
        let s = self.settings.clone();
        let what = format!(
            "preparing {} units ({} layout)",
            thousands(s.units as u64),
            s.layout.name()
        );
        self.start_worker(what, None, move |sim| {
            if respawn {
                sim.respawn(&s);
            } else {
                sim.prepare(&s);
            }
            None
        });
    }

    /// The worker's result once it finished: the simulation is back, and
    /// `Some` carries a step call's progress with its context. `None` while
    /// it works (the overlay then says what it does and for how long) or
    /// when no worker runs (`Err(())` then: nothing to wait for).
    fn poll_worker(&mut self) -> Result<Option<(StepProgress, StepContext)>, ()> {
        let Some(w) = self.worker.take() else {
            return Err(());
        };
        if !w.handle.is_finished() {
            let secs = w.since.elapsed().as_secs_f64();
            // A step call is shown only when it is slow enough to notice.
            if w.step.is_none() || secs > 0.25 {
                self.stats.preparing = Some(format!("{} on a worker thread: {secs:.1} s", w.what));
            }
            self.worker = Some(w);
            return Ok(None);
        }
        self.stats.preparing = None;
        let result = w.handle.join();
        match (w.sim.try_recv(), result) {
            (Ok(sim), Ok(result)) => {
                self.sim = sim;
                match (result, w.step) {
                    (Some((progress, call_s)), Some(ctx)) => {
                        self.last_call_s = call_s;
                        Ok(Some((progress, ctx)))
                    }
                    _ => {
                        self.needs_picture = true;
                        if self.sim.world != self.world {
                            self.world = self.sim.world;
                            self.frame_world();
                        }
                        if let Some(id) = self.select_at_start.take() {
                            self.select_start(id);
                        }
                        Err(())
                    }
                }
            }
            _ => {
                self.stats.status = Some((
                    format!("the worker thread failed ({}); respawned the units", w.what),
                    get_time() + STATUS_S,
                ));
                self.sim = Simulation::new(&self.settings);
                self.needs_picture = true;
                Err(())
            }
        }
    }

    /// One simulation step, or one piece of a frame spread over refreshes;
    /// returns whether a frame was completed (so a new picture may begin).
    /// A step call that took longer than [`WORKER_CALL_S`] at many units
    /// makes the next ones run on a worker thread (checked again after
    /// each). The camera follows the selected unit.
    fn step(&mut self) -> bool {
        let polled = self.poll_worker();
        // A click made while the worker had the simulation.
        self.pick_clicked();
        match polled {
            Ok(None) => return false,
            Ok(Some((progress, ctx))) => return self.after_step(progress, ctx),
            Err(()) => {}
        }
        let allocs = alloc_count::allocations();
        // Respawn here, not when asked: until this step the index still
        // describes the units on screen, which picking reads. Stable ids
        // restart with a new spawn, so the selection goes with it.
        let s = &self.settings;
        let spawn = s.spawn_key();
        let asked = std::mem::take(&mut self.respawn);
        if asked || spawn != self.spawned {
            self.selection.clear();
        }
        if (asked || self.sim.needs_prepare(s)) && s.units >= WORKER_UNITS {
            self.start_preparing(asked);
            return false;
        }
        if asked {
            self.sim.respawn(s);
        }
        let respawned = spawn != self.spawned;
        self.needs_picture |= asked;
        self.spawned = spawn;
        let dt = std::mem::take(&mut self.since_step).min(MAX_STEP_S);
        let sweep_cell = self.sweep.as_ref().and_then(CellSweep::cell_size);
        let slicing = Slicing {
            queries: self.query_slice,
            seconds: self.budget.slice_s,
        };
        // The sweep's cell size on a copy: the user's setting stays.
        let settings = Settings {
            cell_size: sweep_cell.unwrap_or(self.settings.cell_size),
            ..self.settings.clone()
        };
        let ctx = StepContext {
            respawned,
            sweep_cell,
            allocs: Some(allocs),
        };
        if self.last_call_s > WORKER_CALL_S && self.settings.units >= WORKER_UNITS {
            let what = format!("step of {} units", thousands(self.settings.units as u64));
            let ctx = StepContext {
                allocs: None,
                ..ctx
            };
            self.start_worker(what, Some(ctx), move |sim| {
                let t = Instant::now();
                let progress = sim.step_sliced(dt, &settings, slicing);
                Some((progress, t.elapsed().as_secs_f64()))
            });
            return false;
        }
        let t = Instant::now();
        let progress = self.sim.step_sliced(dt, &settings, slicing);
        self.last_call_s = t.elapsed().as_secs_f64();
        self.after_step(progress, ctx)
    }

    /// Finds the selected unit again after units moved in memory (a step,
    /// or a piece of one that reordered them), says so when it died, and
    /// moves a following camera to it. Returns its storage index.
    fn resolve_selection(&mut self) -> Option<usize> {
        let sim = &self.sim;
        let resolved = self.selection.resolve(sim.handles(), |h| sim.resolve(h));
        if let Some(h) = self.selection.take_lost() {
            self.stats.status = Some((
                format!(
                    "The selected unit (#{}, generation {}) died; selection cleared.",
                    h.slot, h.generation
                ),
                get_time() + STATUS_S,
            ));
        }
        if let (Some(i), true) = (resolved, self.selection.follows()) {
            let (x, z) = self.sim.store().pos(i);
            self.camera.target = Vec3::new(x, 0.0, z);
        }
        resolved
    }

    /// Records a step call's `progress` for the overlay, the sweep, the
    /// churn meter and the selection; returns whether a frame was completed.
    fn after_step(&mut self, progress: StepProgress, ctx: StepContext) -> bool {
        let StepContext {
            respawned,
            sweep_cell,
            allocs,
        } = ctx;
        self.needs_picture |= respawned;
        self.stats.units = self.sim.len();
        self.stats.world = self.sim.world;
        if self.sim.world != self.world {
            self.world = self.sim.world;
            self.frame_world();
        }
        self.stats.step = match progress {
            StepProgress::Done(st) => {
                self.stats.slice_progress = None;
                if st.slices <= 1 {
                    self.adapt_slice(st.query_s, self.sim.len());
                }
                st
            }
            StepProgress::Partial { done, of, slice_s } => {
                // A piece of a sliced frame: the picture of the last
                // complete frame stays on screen.
                let before = self.stats.slice_progress.map_or(0, |p| p.0);
                self.stats.slice_progress = Some((done, of));
                if done > before {
                    self.adapt_slice(slice_s, done - before);
                }
                // A piece may have reordered the units.
                self.resolve_selection();
                return false;
            }
        };
        // Counted only when the step ran in this thread: the counter is
        // process-wide, and the window allocates while a worker steps.
        self.stats.step_allocations = allocs.map(|a| alloc_count::allocations() - a);
        self.stats.result_bytes = self.sim.result_bytes();
        if let (Some(sw), Some(_)) = (self.sweep.as_mut(), sweep_cell) {
            sw.record(&self.stats.step);
            self.stats.sweep.clone_from(&self.sweep);
        }
        if std::mem::take(&mut self.sweep_at_launch) {
            self.sweep_action(SweepAction::Start);
        }
        let now = get_time();
        if respawned {
            self.churn.clear();
        }
        self.churn
            .record(now, self.stats.step.deaths, self.stats.step.spawns);
        self.stats.churn_per_s = self.churn.rates();
        (self.stats.llc_event, self.stats.counters_unavailable) = match self.sim.cache_counters() {
            Ok(e) => (e, None),
            Err(why) => ("", Some(why.to_string())),
        };
        let resolved = self.resolve_selection();
        self.stats.memory = self.view.show_memory.then(|| self.memory_view(resolved));
        true
    }

    /// The memory view of the last step: the query of the selected unit (or
    /// of a unit in the middle of storage), and the mean over sampled queries.
    fn memory_view(&mut self, selected: Option<usize>) -> MemoryView {
        let sim = &self.sim;
        let r = self.settings.radius;
        let n = sim.len();
        let Some(i) = selected.or((n > 0).then_some(n / 2)) else {
            return MemoryView::default();
        };
        memory::trace_query(sim, i, r, &mut self.trace);
        let mut scratch = Vec::new();
        let drawn = memory::count_lines(&self.trace, &mut scratch);
        // The naive scan traces every unit per query: sample few.
        let samples = if self.settings.strategy == Strategy::Naive {
            2
        } else {
            256
        };
        let max = memory_view::STRIP_WIDTH * memory_view::STRIP_ROWS;
        let store = sim.store();
        MemoryView {
            layout: self.settings.layout.name(),
            strategy: self.settings.strategy.name(),
            unit: (store.hot(i).id, selected.is_some()),
            unit_strips: memory::strips(&store.regions(), &self.trace.unit_reads, max),
            index_strips: memory::strips(&memory::index_regions(sim), &self.trace.index_reads, max),
            drawn,
            mean: (memory::mean_lines(sim, r, samples), samples.min(n)),
            unit_bytes_per_candidate: match self.settings.strategy {
                Strategy::SortedGrid => 0,
                _ => store.bytes_read_per_candidate(),
            },
            index_bytes_per_candidate: match self.settings.strategy {
                Strategy::Naive => 0,
                Strategy::Grid => 4,
                Strategy::SortedGrid => 12,
            },
            bytes_per_unit: store.bytes_per_unit(),
        }
    }

    /// Begins the picture of the last step: ground, grid lines, the cell
    /// occupancy heat map, the selected unit's query circle and searched
    /// cells (inspected once per step), and one instance per unit.
    fn begin_picture(&mut self, pack_budget_s: f64) {
        self.stats.render_s = 0.0;
        if self.view.unit_mesh != self.mesh_kind {
            self.switch_mesh(self.view.unit_mesh);
        }
        self.renderer.set_layout(self.view.vertex_layout);
        self.renderer
            .set_normal_precision(self.view.normal_precision);
        self.renderer
            .set_error_view(self.view.color_mode == ColorMode::NormalError);
        self.renderer
            .set_instance_codec(self.world, self.view.unit_scale);
        let selected = self.selection.index();
        match selected {
            Some(i) => self.inspection.fill(&self.sim, i, self.settings.radius),
            None => self.inspection.clear(),
        }
        self.inspected = selected;
        let highlight = selected.map(|i| Highlight {
            selected: i,
            candidates: &self.inspection.candidates,
            neighbors: &self.inspection.neighbors,
        });
        // Only the units of the grid cells under the view are packed; the
        // per-unit test of the LOD then culls the rest precisely.
        let view_proj = self.camera.view_proj(aspect());
        let lod = Lod::new(
            view_proj,
            crate::render::camera::FOVY,
            macroquad::miniquad::window::screen_size(),
            self.renderer.model_len(),
            IMPOSTOR_PIXELS,
        );
        let reach = self.renderer.model_len() * self.view.unit_scale * 1.5;
        match lod.ground_box(reach, reach) {
            Some(bounds) => visible_units(&self.sim, bounds, &mut self.visible),
            None => self.visible.clear(),
        }
        self.grid_culled = self.sim.len() - self.visible.len();
        self.scene.instances_mut().clear();
        let grid = self.view.show_grid.then(|| {
            self.stats
                .step
                .grid
                .map_or(self.settings.cell_size, |g| g.cell)
        });
        let circle = selected.map(|i| {
            let (x, z) = self.sim.store().pos(i);
            (x, z, self.settings.radius)
        });
        self.packing = Some(Packing {
            packer: Packer::new(
                &self.sim,
                self.view.color_mode,
                highlight,
                self.view.unit_scale,
            ),
            next: 0,
            camera: self.camera,
            aspect: aspect(),
            view_proj,
            lod,
            grid,
            circle,
            block: self.inspection.block,
        });
        self.pack_picture(pack_budget_s);
    }

    /// Packs the instances of the picture begun by [`App::begin_picture`]
    /// for up to `budget_s` seconds (about; [`PACK_BUDGET_S`] per refresh), then, once every visible unit is packed,
    /// hands the picture to the scene. A million units through AoS pointers
    /// take about 180 ms to pack, so they are packed over a few refreshes;
    /// the simulation does not step meanwhile, so every part reads the same
    /// units.
    fn pack_picture(&mut self, budget_s: f64) {
        let Some(mut p) = self.packing.take() else {
            return;
        };
        let t = Instant::now();
        let n = self.sim.len();
        while p.next < self.visible.len() {
            let end = (p.next + PACK_CHUNK).min(self.visible.len());
            let units = self.visible[p.next..end]
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| i < n);
            p.packer.pack(&self.sim, units, self.scene.instances_mut());
            p.next = end;
            if t.elapsed().as_secs_f64() > budget_s && p.next < self.visible.len() {
                self.packing = Some(p);
                return;
            }
        }
        if self.view.cell_occupancy {
            self.heatmap.update(&self.sim);
        }
        let occupancy = self.view.cell_occupancy.then_some(&self.heatmap);
        let Packing {
            camera,
            aspect,
            view_proj,
            lod,
            grid,
            circle,
            block,
            ..
        } = p;
        let world = self.world;
        self.renderer.set_pixels_at_depth_1(lod.pixels_at_depth_1());
        self.scene.begin(
            camera.macroquad_camera(aspect),
            view_proj,
            BACKGROUND,
            &lod,
            || {
                draw_world(world, grid);
                if let Some(h) = occupancy {
                    h.draw(0.5 * ground_lift(world));
                }
                if let Some((geo, cells)) = block {
                    draw_searched_cells(&geo, cells);
                }
                if let Some((x, z, r)) = circle {
                    draw_query_circle(x, z, r);
                }
            },
        );
    }

    /// Draws as much of the picture as the budget allows (all of it on the
    /// last frame, for the screenshot) and shows the last complete one.
    fn draw(&mut self, budget_s: f64) {
        let t = Instant::now();
        let finish = self.last_frame.is_some_and(|n| self.frame >= n);
        let done = self.scene.advance(&mut self.renderer, budget_s, finish);
        set_default_camera();
        clear_background(BACKGROUND);
        self.scene.present();
        self.stats.render_s += t.elapsed().as_secs_f64();
        if done {
            self.stats.picture = self.scene.last_picture();
            self.stats.picture.lod.culled += self.grid_culled;
            self.picture_done = true;
            self.stats.uploaded_bytes = self.renderer.take_uploaded_bytes();
            self.stats.vertex_layout = self.renderer.layout();
            self.stats.mesh_bytes = self.renderer.mesh_bytes();
        }
    }

    /// Records the frame for the overlay, then writes the screenshot and ends
    /// the program after the last frame.
    fn finish(&mut self) -> Option<i32> {
        let now = get_time();
        self.fps.tick(now);
        self.stats.fps = self.fps.fps();
        self.stats.slowest_s = self.fps.slowest();
        if self
            .stats
            .status
            .as_ref()
            .is_some_and(|(_, until)| now > *until)
        {
            self.stats.status = None;
        }
        if std::mem::take(&mut self.picture_done) && self.picture_of_step {
            // One sample per step: its phases and the time its picture took to draw.
            self.stats
                .history
                .record(PhaseSample::of(now, &self.stats.step, self.stats.render_s));
            if std::mem::take(&mut self.restart_after_picture) {
                self.stats.history.restart();
            }
            self.stats.means = self.stats.history.means();
        }
        // While a worker has the simulation, the line of the last step stays.
        if self.worker.is_none() {
            let sim = &self.sim;
            self.stats.selected =
                self.selection
                    .index()
                    .filter(|&i| i < sim.len())
                    .map(|i| SelectedUnit {
                        id: sim.store().hot(i).id,
                        neighbors: sim.neighbor_count(i),
                        enemies: sim.store().hot(i).enemies,
                        follow: self.selection.follows(),
                        inspected: (self.inspected == Some(i)).then_some((
                            self.inspection.candidates.len(),
                            self.inspection.neighbors.len(),
                        )),
                    });
        }
        if std::mem::take(&mut self.shot_requested) {
            let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            let message = match next_screenshot_path(&dir) {
                None => format!(
                    "Screenshot not saved: {} already holds spatial-query-lab-001.png to -999.png.",
                    dir.display()
                ),
                Some(path) => match save_screenshot(&path, self.view.show_overlay) {
                    Ok(()) => format!("Screenshot saved: {}", path.display()),
                    Err(e) => format!("Screenshot not saved: {e}"),
                },
            };
            self.stats.status = Some((message, now + STATUS_S));
        }
        if self.last_frame.is_none_or(|n| self.frame < n) {
            return None;
        }
        if let Some(path) = &self.screenshot {
            if let Err(e) = save_screenshot(path, self.view.show_overlay) {
                eprintln!("error: --screenshot: {e}");
                return Some(1);
            }
            println!(
                "wrote {} after {} frames (slowest refresh {:.0} ms)",
                path.display(),
                self.frame,
                self.stats.slowest_s.unwrap_or(0.0) * 1e3
            );
        }
        Some(0)
    }

    /// The unit nearest to the ground point `hit` (world units), within
    /// [`PICK_RADIUS`], found with the simulation's own spatial index.
    fn pick(&mut self, hit: Vec3) -> Option<usize> {
        self.pick_buf.clear();
        self.sim.query(
            &Query::new(hit.x, hit.z, PICK_RADIUS),
            self.settings.kernel,
            &mut self.pick_buf,
        );
        let store = self.sim.store();
        let d = |k: usize| {
            let (x, z) = store.pos(k);
            (x - hit.x).powi(2) + (z - hit.z).powi(2)
        };
        self.pick_buf
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| j < store.len())
            .min_by(|&i, &j| d(i).total_cmp(&d(j)))
    }

    /// Replaces the renderer with one for the unit mesh `kind` (loaded from
    /// `assets/` when it is not the built-in one; a missing or broken file
    /// draws the built-in tank and leaves a warning in the overlay). If the
    /// new renderer cannot be built, the old one stays, with the reason.
    fn switch_mesh(&mut self, kind: UnitMeshKind) {
        let (mesh, warning) = load_unit_kind(kind, &asset_dirs());
        match UnitRenderer::new(&mesh, self.renderer.instance_capacity()) {
            Ok(new) => {
                std::mem::replace(&mut self.renderer, new).delete();
                self.mesh_kind = kind;
                self.stats.mesh_warning = warning;
                self.stats.mesh_vertices = self.renderer.vertex_count();
                self.stats.mesh_triangles = self.renderer.index_count() / 3;
                self.stats.normal_errors = NormalPrecision::ALL.map(|p| {
                    let e = self.renderer.normal_errors(p);
                    (e.max, e.mean)
                });
            }
            Err(e) => {
                self.stats.mesh_warning = Some(format!("mesh {}: {e}", kind.key()));
                self.view.unit_mesh = self.mesh_kind;
            }
        }
    }

    /// Frames the whole world and stops following the selected unit.
    fn frame_world(&mut self) {
        self.camera = framed(self.world);
        self.selection.set_follow(false);
    }
}

/// The default view of the whole world (edge `world`, world units) in this window.
fn framed(world: f32) -> OrbitCamera {
    let mut camera = OrbitCamera::looking_at_world(world);
    camera.frame_world_for_aspect(world, aspect());
    camera
}

/// Width / height of the window.
fn aspect() -> f32 {
    screen_width() / screen_height().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::next_screenshot_path;

    #[test]
    fn screenshots_take_the_first_free_number() {
        let dir = std::env::temp_dir().join(format!("sql-shots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = |k: u32| dir.join(format!("spatial-query-lab-{k:03}.png"));
        assert_eq!(next_screenshot_path(&dir), Some(name(1)));
        for k in [1, 2] {
            std::fs::write(name(k), b"png").unwrap();
        }
        assert_eq!(next_screenshot_path(&dir), Some(name(3)));
        std::fs::remove_file(name(1)).unwrap();
        assert_eq!(next_screenshot_path(&dir), Some(name(1)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
