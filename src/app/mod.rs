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
//! 3. `App::overlay_actions` (the overlay's requests), then `App::settle`:
//!    the budget guards ([`crate::sim::budget::settle`]) and a restart of
//!    the timing means when the work changed (a respawn waits for the step);
//! 4. `App::next_picture`: while a picture's instances are being packed,
//!    `App::pack_picture` goes on (within a budget per refresh); when the
//!    last picture is complete, `App::step` (one step call; the selection
//!    follows its unit) and `App::begin_picture` (ground, grid, query circle
//!    and the instances of this step);
//! 5. `App::draw`: draws the picture within [`RENDER_BUDGET_S`] (all of it
//!    when it fits, else a slice per refresh: [`ProgressiveScene`]) and shows
//!    the last complete picture; then `EguiHost::draw` paints the overlay on top;
//! 6. `App::finish`: frame statistics, the screenshot and the exit.
//!
//! The frame's methods live in `input.rs` (keys, mouse, picking),
//! `changes.rs` (setting changes, guards, slicing), `stepping.rs` (the step
//! call and what follows it), `worker.rs` (the worker thread) and
//! `picture.rs` (packing and drawing the picture). Submodules hold the
//! pieces that are pure and tested headless: [`keys`],
//! [`pointer`](mod@pointer), [`selection`]; what the overlay shows is
//! [`crate::ui::stats::FrameStats`].

use crate::browser;
mod changes;
mod compare;
pub mod files;
mod input;
pub mod keys;
mod lesson;
mod picture;
pub mod pointer;
mod presentation;
mod quiet;
pub mod render_bench;
pub mod selection;
mod stepping;
mod worker;

use picture::PicturePacing;
use worker::{StepContext, Worker};

use crate::clock::Instant;
use std::path::PathBuf;

use glam::Vec3;
use macroquad::prelude::*;

use crate::measure::compare::Comparison;
use crate::measure::sweep::CellSweep;
use crate::render::mesh::asset_dirs;
use crate::render::{
    load_unit_kind, save_screenshot, EguiHost, OrbitCamera, PassInput, ProgressiveScene,
    UnitRenderer,
};
use crate::render::{
    CellHeatmap, ColorMode, NormalPrecision, UnitMeshKind, VertexLayout, RENDER_BUDGET_S,
};
use crate::scenario::Scenario;
use crate::sim::budget::{self, Budget, GuardNotice, NaiveCost};
use crate::sim::inspect::Inspection;
use crate::sim::{memory, Settings, Simulation, SpawnKey};
use crate::spatial::Kernel;
use crate::ui::overlay::UNITS_RANGE;
use crate::ui::stats::{ChurnMeter, FpsMeter, FrameStats, PhaseSample, SelectedUnit};
use crate::ui::{Overlay, OverlayActions, ViewOptions};
use pointer::PointerRouter;
use selection::Selection;

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
    /// The lesson `--lesson` opens at its first step (its settings replace
    /// the command line's).
    pub lesson: Option<crate::lesson::Lesson>,
    /// Scale of the overlay's text and controls at start (`--ui-scale`;
    /// `None`: 1), clamped to [`crate::ui::UI_SCALE_RANGE`].
    pub ui_scale: Option<f32>,
    /// The window was opened full screen (`--fullscreen`; the `Conf` does it).
    pub fullscreen: bool,
    /// The window's size when not full screen, pixels (`--window`): what
    /// leaving full screen asks for.
    pub window_size: (i32, i32),
}

/// Respawns and layout changes at this many units or more run on a worker
/// thread ([`App::start_preparing`]): 100,000 units take about 20 ms to
/// store as AoS and 80 ms as AoS pointers on the development machine.
const WORKER_UNITS: usize = 100_000;
/// Seconds of work (step, picture start, drawing) a refresh aims at: the
/// picture's slice gets what the step and the picture's start left, so that
/// with the overlay and the present a refresh stays under 250 ms.
const REFRESH_WORK_S: f64 = 0.15;
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
            if browser::IN_BROWSER {
                error!("{}", e);
                browser::page_failed(&format!("Spatial Query Lab cannot start: {e}"));
            }
            return 1;
        }
    };
    let mut first = true;
    loop {
        if let Some(code) = app.frame() {
            return code;
        }
        next_frame().await;
        if std::mem::take(&mut first) {
            browser::page_ready();
        }
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
    /// The thread count whose refusal the notices last reported.
    threads_refused: Option<usize>,
    naive_cost: NaiveCost,
    budget: Budget,
    /// Respawn at the next step (R or the overlay's button).
    respawn: bool,
    /// Real time since the last step, seconds.
    since_step: f32,
    /// Unit count, workload and seed of the units the simulation holds.
    spawned: SpawnKey,
    /// Which picture to draw next and how far it is.
    pacing: PicturePacing,
    pick_buf: Vec<u32>,
    /// The cell-size sweep, running or finished (shown until closed).
    sweep: Option<CellSweep>,
    /// Start the sweep after the next step (`--sweep`).
    sweep_at_launch: bool,
    /// The finished sweep was added to the compare panel.
    sweep_kept: bool,
    /// The compare panel's rows and curves.
    comparison: Comparison,
    /// The quiet measurement in progress (a lesson's, or the compare
    /// panel's): the scene waits for it ([`quiet`]).
    quiet: Option<quiet::Quiet>,
    /// A quiet measurement asked for, waiting for the scene's first picture
    /// of the settings on screen: its tasks, purpose and when it was asked.
    quiet_waiting: Option<(Vec<crate::measure::run::Task>, quiet::Purpose, Instant)>,
    /// Where the compare chart was drawn in the last overlay pass, points.
    chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The lesson being followed in the lessons panel.
    lesson: Option<crate::lesson::session::Session>,
    /// The lesson `--lesson FILE` loaded, listed after the bundled ones.
    file_lesson: Option<crate::lesson::Lesson>,
    /// Where the lesson chart was drawn in the last overlay pass, points.
    lesson_chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The lesson page last mirrored to the browser page (`refresh_lesson`).
    spoken_lesson: String,
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
    /// A panel's chart to save as the PNG of its pixels once this frame is
    /// drawn (the browser's Save chart): the region in pixels, and the panel.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    region_requested: Option<([u32; 4], &'static str)>,
    /// The unit mesh `renderer` was built for.
    mesh_kind: UnitMeshKind,
    /// The files of `assets/scenarios/`, in the overlay's order.
    scenario_files: Vec<PathBuf>,
    /// The file of the loaded scenario.
    scenario_file: Option<PathBuf>,
    /// Naive queries per refresh ([`Simulation::step_sliced`]); `usize::MAX`
    /// for the other strategies.
    query_slice: usize,
    /// The worker thread that has the simulation, if one has it
    /// ([`App::start_worker`]).
    worker: Option<Worker>,
    /// Seconds of the last step call ([`Simulation::step_sliced`]).
    last_call_s: f64,
    /// `--select`'s unit, selected once the worker has spawned the units.
    select_at_start: Option<u32>,
    /// A click not yet picked: the ground point under it (`None` inside:
    /// the click missed the ground), picked when the simulation is here.
    click_at: Option<Option<Vec3>>,
    /// Where the overlay panel was last drawn, points (`None` before the
    /// first pass or while hidden).
    panel: Option<egui_macroquad::egui::Rect>,
    /// The right column the lessons panel (and the memory view with it) is
    /// docked in, points, while the lessons panel is open.
    dock: Option<egui_macroquad::egui::Rect>,
    /// What the camera was last framed for ([`App::keep_framed`]).
    framed: Option<presentation::Framed>,
    /// The window is full screen (as last applied).
    fullscreen: bool,
    /// `--window`'s size, pixels.
    window_size: (i32, i32),
}

impl AppOptions {
    /// The display options these start-up options ask for.
    fn view(&self) -> ViewOptions {
        ViewOptions {
            color_mode: self.color,
            vertex_layout: self.vertex_layout,
            normal_precision: self.normal_precision,
            unit_mesh: self.unit_mesh,
            cell_occupancy: self.cell_occupancy,
            show_memory: self.memory_view,
            ui_scale: crate::ui::ui_scale::clamp_ui_scale(self.ui_scale.unwrap_or(1.0)),
            fullscreen: self.fullscreen,
            ..ViewOptions::default()
        }
    }
}

impl App {
    fn new(opts: AppOptions) -> Result<Self, String> {
        let view = opts.view();
        let mut settings = opts.settings;
        settings.kernel = settings.kernel.or_scalar();
        let (mesh, mesh_warning) = load_unit_kind(opts.unit_mesh, &asset_dirs());
        let renderer = UnitRenderer::new(&mesh, settings.units.max(UNITS_RANGE.1))
            .map_err(|e| format!("render pipeline: {e}"))?;
        // The window's own allocations (drawing, the overlay) are not the
        // engine's: a quiet measurement on its thread counts only its own.
        crate::alloc_count::exclude_this_thread();
        let egui = EguiHost::new();
        egui.ctx()
            .set_pixels_per_point(screen_dpi_scale() * view.ui_scale);

        let naive_cost = NaiveCost::measure(Kernel::available(), settings.seed, settings.workload);
        let budget = Budget::default();
        let notices = budget::settle(&mut settings, &budget);
        // Many units are spawned on a worker thread once the window runs.
        let big = settings.units >= WORKER_UNITS;
        let sim = if big {
            worker::empty_simulation(&settings)
        } else {
            Simulation::new(&settings)
        };
        // Framed in the whole window until the first pass shows the panel.
        let (camera, framed) = presentation::framed_in(sim.world, (Vec2::ZERO, window()));
        let mut stats = FrameStats {
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            help: keys::help_rows(),
            ..Default::default()
        };
        picture::record_mesh(&mut stats, &renderer, mesh_warning);
        let mut app = App {
            spawned: settings.spawn_key(),
            world: sim.world,
            settings,
            view,
            sim,
            renderer,
            scene: ProgressiveScene::default(),
            egui,
            camera,
            overlay: Overlay::default(),
            stats,
            fps: FpsMeter::default(),
            selection: Selection::default(),
            pointer: PointerRouter::default(),
            notices: Vec::new(),
            threads_refused: None,
            naive_cost,
            budget,
            respawn: false,
            since_step: 0.0,
            pacing: PicturePacing::new(),
            pick_buf: Vec::new(),
            sweep: None,
            sweep_at_launch: opts.sweep,
            sweep_kept: false,
            comparison: Comparison::default(),
            quiet: None,
            quiet_waiting: None,
            chart_rect: None,
            lesson: None,
            file_lesson: opts
                .lesson
                .clone()
                .filter(|l| crate::lesson::bundled::get(&l.name).is_none()),
            lesson_chart_rect: None,
            spoken_lesson: String::new(),
            heatmap: CellHeatmap::default(),
            inspection: Inspection::default(),
            inspected: None,
            churn: ChurnMeter::default(),
            trace: memory::QueryTrace::default(),
            frame: 0,
            last_frame: opts.frames.or(opts.screenshot.as_ref().map(|_| 60)),
            screenshot: opts.screenshot,
            shot_requested: false,
            region_requested: None,
            mesh_kind: opts.unit_mesh,
            scenario_files: Vec::new(),
            scenario_file: None,
            query_slice: usize::MAX,
            worker: None,
            last_call_s: 0.0,
            select_at_start: None,
            click_at: None,
            panel: None,
            dock: None,
            framed: Some(framed),
            fullscreen: opts.fullscreen,
            window_size: opts.window_size,
        };
        app.start(opts.select, opts.scenario, notices);
        if let Some(lesson) = opts.lesson {
            // The first step's settings go through what every later change
            // does (slicing, limits), so a large Naive first step is sliced
            // like any other Naive frame.
            let before = app.settings.clone();
            app.start_lesson(lesson);
            app.settle(&before);
            app.refresh_lesson();
        }
        Ok(app)
    }

    /// What the window does once it exists: list the scenario files, select
    /// `--select`'s unit (after the worker spawned the units, when they are
    /// many), name the loaded scenario, show the guards' `notices` and the
    /// controls' limits.
    fn start(
        &mut self,
        select: Option<u32>,
        scenario: Option<(PathBuf, Scenario)>,
        notices: Vec<GuardNotice>,
    ) {
        self.list_scenarios();
        self.list_lessons();
        if self.settings.units >= WORKER_UNITS {
            // `--select` waits for the units.
            self.select_at_start = select;
            self.start_preparing(false);
        } else if let Some(id) = select {
            self.select_start(id);
        }
        if let Some((path, sc)) = scenario {
            self.stats.scenario = Some((sc.name, sc.description));
            self.scenario_file = Some(path);
        }
        self.add_notices(notices);
        self.update_limits();
    }

    /// One frame; returns the exit code when the program should end.
    fn frame(&mut self) -> Option<i32> {
        self.frame += 1;
        self.poll_quiet();
        // While a measurement runs on its thread, the window answers a few
        // times a second and leaves the cores to it.
        if self.quiet.as_ref().is_some_and(quiet::Quiet::threaded) {
            std::thread::sleep(std::time::Duration::from_secs_f64(quiet::IDLE_S));
        }
        let started = Instant::now();
        let before = self.settings.clone();
        // The screenshot's last frame runs the overlay once, after the step,
        // so it shows this frame's numbers.
        let last = self.last_frame.is_some_and(|n| self.frame >= n);
        let (actions, pass) = if last {
            Default::default()
        } else {
            self.overlay_pass()
        };
        self.input(pass);
        self.overlay_actions(actions);
        self.keep_framed();
        self.settle(&before);
        self.since_step += get_frame_time();
        self.next_picture(last);
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
    fn overlay_pass(&mut self) -> (OverlayActions, PassInput) {
        let App {
            egui,
            overlay,
            settings,
            view,
            stats,
            ..
        } = self;
        let mut actions = OverlayActions::default();
        let pass = egui.run_overlay(|ctx| actions = overlay.show(ctx, settings, view, stats));
        self.panel = actions.panel;
        self.apply_presentation();
        (actions, pass)
    }

    /// Writes the window to the PNG at `path` ([`save_screenshot`]), or
    /// refuses in one line when the picture cannot hold the units (no
    /// offscreen target) or came back one color with the overlay shown.
    fn save_picture(&self, path: &std::path::Path) -> Result<(), String> {
        if let Some(why) = self.scene.cannot_draw() {
            return Err(format!("cannot save screenshot {}: {why}", path.display()));
        }
        save_screenshot(path, self.view.show_overlay)
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
        if std::mem::take(&mut self.pacing.picture_done) && self.pacing.picture_of_step {
            // One sample per step: its phases and the time its picture took
            // to draw. A picture of a step of other settings than the
            // current ones (begun before a change, or deferred across one)
            // goes into the graph but not into the means.
            let old_work = !self.stats.is_current(&self.settings);
            self.stats
                .history
                .record(PhaseSample::of(now, &self.stats.step, self.stats.render_s));
            if std::mem::take(&mut self.pacing.restart_after_picture) || old_work {
                self.stats.history.restart();
            }
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
            let saved = match self.scene.cannot_draw() {
                Some(why) => Err(format!("the picture is not drawn: {why}")),
                None => crate::render::screenshot_png(self.view.show_overlay),
            };
            let message =
                match saved.and_then(|png| files::deliver("spatial-query-lab", "png", &png)) {
                    Ok(to) => format!("Screenshot saved: {to}"),
                    Err(e) => format!("Screenshot not saved: {e}"),
                };
            self.stats.status = Some((message, now + STATUS_S));
        }
        if let Some((px, which)) = self.region_requested.take() {
            // Read after drawing: WebGL clears the drawing buffer once a
            // frame is shown, so a read while handling input is black.
            let message = match crate::render::region_png(px)
                .and_then(|png| files::deliver("spatial-query-lab-chart", "png", &png))
            {
                Ok(to) => format!("Chart saved: {to}"),
                Err(e) => format!("Chart of the {which} panel not saved: {e}"),
            };
            self.toast(message);
        }
        if self.last_frame.is_none_or(|n| self.frame < n) {
            return None;
        }
        if let Some(path) = &self.screenshot {
            if let Err(e) = self.save_picture(path) {
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
}

/// The default view of the whole world (edge `world`, world units) in the
/// whole window (`render-bench`; the window frames it beside the panel,
/// [`App::frame_world`]).
fn framed(world: f32) -> OrbitCamera {
    let mut camera = OrbitCamera::looking_at_world(world);
    camera.frame_world_for_aspect(world, aspect());
    camera
}

/// The window's size, logical pixels.
fn window() -> glam::Vec2 {
    glam::Vec2::new(screen_width(), screen_height())
}

/// Width / height of the window.
fn aspect() -> f32 {
    screen_width() / screen_height().max(1.0)
}
