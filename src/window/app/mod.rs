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
//!    the budget guards ([`crate::settings::budget::settle`]) and a restart of
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
//! [`crate::window::ui::stats::FrameStats`].

use crate::platform::browser;
mod changes;
mod compare;
mod exports;
pub mod files;
mod input;
pub mod keys;
mod lesson;
mod picture;
pub mod pointer;
mod presentation;
mod presenter;
mod quiet;
pub mod render_bench;
pub mod selection;
mod share;
mod stepping;
mod worker;

use changes::SweepState;
use compare::ComparePanel;
use exports::Exports;
use lesson::LessonPanel;
use picture::PicturePacing;
use worker::{StepContext, Worker};

use crate::platform::clock::Instant;
use std::path::PathBuf;

use glam::Vec3;
use macroquad::prelude::*;

use crate::engine::sim::inspect::Inspection;
use crate::engine::sim::{Settings, Simulation, SpawnKey};
use crate::engine::spatial::Kernel;
use crate::measure::memory;
use crate::settings::budget::{self, Budget, GuardNotice, NaiveCost};
use crate::settings::scenario::Scenario;
use crate::settings::view::ViewSettings;
use crate::window::render::mesh::asset_dirs;
use crate::window::render::{
    load_unit_kind, EguiHost, OrbitCamera, PassInput, ProgressiveScene, UnitRenderer,
};
use crate::window::render::{CellHeatmap, UnitMeshKind, RENDER_BUDGET_S};
use crate::window::ui::overlay::units_range;
use crate::window::ui::stats::{ChurnMeter, FpsMeter, FrameStats, PhaseSample, SelectedUnit};
use crate::window::ui::{Overlay, OverlayActions, ViewOptions};
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
    /// The view settings at start (colors, vertex layout, normal bits,
    /// unit mesh, heat map, cache model).
    pub view: ViewSettings,
    /// Start with the memory view open.
    pub memory_view: bool,
    /// Start the cell-size sweep after the first step, as the overlay's button does.
    pub sweep: bool,
    /// The scenario loaded with `--scenario` (its file and values), already
    /// applied to `settings`.
    pub scenario: Option<(PathBuf, Scenario)>,
    /// The lesson `--lesson` opens at its first step (its settings replace
    /// the command line's).
    pub lesson: Option<crate::teaching::lesson::Lesson>,
    /// The lesson's step to open at, 1-based (`--step`; one past the last
    /// is the summary page; `None`: the first).
    pub lesson_step: Option<usize>,
    /// The setting flags given with `--lesson`, put over the step's
    /// settings once it opens (the panel then says where they differ).
    pub lesson_flags: Scenario,
    /// Embed mode (`--embed`, `?embed=1`): the scene and one headline
    /// number, the panel closed.
    pub embed: bool,
    /// What "Copy link" puts before the state's parameters on the desktop
    /// (`--link-base`); the browser uses its page's address.
    pub link_base: String,
    /// Scale of the overlay's text and controls at start (`--ui-scale`;
    /// `None`: 1), clamped to [`crate::window::ui::UI_SCALE_RANGE`].
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
    /// The cell-size sweep.
    sweep: SweepState,
    /// The compare panel's rows and curves.
    compare: ComparePanel,
    /// The quiet measurement in progress (a lesson's, or the compare
    /// panel's): the scene waits for it ([`quiet`]).
    quiet: Option<quiet::Quiet>,
    /// A quiet measurement asked for, waiting for the scene's first picture
    /// of the settings on screen: its tasks, purpose and when it was asked.
    quiet_waiting: Option<(Vec<crate::measure::run::Task>, quiet::Purpose, Instant)>,
    /// The lessons panel's lesson and list.
    lessons: LessonPanel,
    /// The units per cell of the last step, when the view shows them.
    heatmap: CellHeatmap,
    /// The selected unit's query of the last step, and its storage index then.
    inspection: Inspection,
    inspected: Option<usize>,
    /// Deaths and spawns per second of the `battle` workload.
    churn: ChurnMeter,
    /// The reads of the query drawn in the memory view (kept for its buffers).
    trace: memory::QueryTrace,
    /// The memory view's cache model: the settings (kernel and threads
    /// left out) and the frame it was made at, and its counts.
    modeled: Option<(Settings, u64, memory::modeled::Modeled)>,
    /// Frames run so far (the first is 1).
    frame: u64,
    /// The frame after which the program ends (`--frames`, `--screenshot`).
    last_frame: Option<u64>,
    /// The pictures asked for, saved once the frame is drawn.
    exports: Exports,
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
    /// Where the window's parts are, and its full-screen state.
    placement: presentation::Placement,
    /// What "Copy link" puts before the state on the desktop (`--link-base`).
    link_base: String,
}

impl AppOptions {
    /// The display options these start-up options ask for.
    fn view(&self) -> ViewOptions {
        ViewOptions {
            settings: self.view,
            show_memory: self.memory_view,
            ui_scale: crate::window::ui::ui_scale::clamp_ui_scale(self.ui_scale.unwrap_or(1.0)),
            fullscreen: self.fullscreen,
            ..ViewOptions::default()
        }
    }
}

impl App {
    /// The window's state at start: the renderer for the unit mesh, the
    /// settings through the budget guards, the units spawned (or left to
    /// the worker when many), the camera framing the whole world, then
    /// [`App::start`] and `--lesson`'s first step.
    ///
    /// # Errors
    /// One line when the render pipeline cannot be built.
    fn new(opts: AppOptions) -> Result<Self, String> {
        let view = opts.view();
        let mut settings = opts.settings.clone();
        settings.kernel = settings.kernel.or_scalar();
        let (renderer, stats) = open_renderer(opts.view.mesh, settings.units)?;
        // The window's own allocations (drawing, the overlay) are not the
        // engine's: a quiet measurement on its thread counts only its own.
        crate::platform::alloc_count::exclude_this_thread();
        let egui = EguiHost::new();
        egui.ctx()
            .set_pixels_per_point(screen_dpi_scale() * view.ui_scale);
        let naive_cost = NaiveCost::measure(Kernel::available(), settings.seed, settings.workload);
        let budget = Budget::default();
        let notices = budget::settle(&mut settings, &budget);
        // Many units are spawned on a worker thread once the window runs.
        let sim = if settings.units >= WORKER_UNITS {
            worker::empty_simulation(&settings)
        } else {
            Simulation::new(&settings)
        };
        // Framed in the whole window until the first pass shows the panel.
        let (camera, framed) = presentation::framed_in(sim.world, (Vec2::ZERO, window()));
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
            sweep: SweepState {
                at_launch: opts.sweep,
                ..SweepState::default()
            },
            compare: ComparePanel::default(),
            quiet: None,
            quiet_waiting: None,
            lessons: LessonPanel::with_file(opts.lesson.clone()),
            heatmap: CellHeatmap::default(),
            inspection: Inspection::default(),
            inspected: None,
            churn: ChurnMeter::default(),
            trace: memory::QueryTrace::default(),
            modeled: None,
            frame: 0,
            last_frame: opts.frames.or(opts.screenshot.as_ref().map(|_| 60)),
            exports: Exports::new(opts.screenshot),
            mesh_kind: opts.view.mesh,
            scenario_files: Vec::new(),
            scenario_file: None,
            query_slice: usize::MAX,
            worker: None,
            last_call_s: 0.0,
            select_at_start: None,
            click_at: None,
            placement: presentation::Placement::new(framed, opts.fullscreen, opts.window_size),
            link_base: opts.link_base.clone(),
        };
        app.start(opts.select, opts.scenario, notices);
        if let Some(lesson) = opts.lesson {
            app.open_first_lesson(lesson, opts.lesson_step, &opts.lesson_flags);
        }
        if opts.embed {
            app.view.embed = true;
            app.view.show_overlay = false;
            app.view.show_lessons = false;
            app.view.lesson_hint = false;
        }
        Ok(app)
    }

    /// Opens `lesson` at its first step. Its settings go through what every
    /// later change does (slicing, limits), so a large Naive first step is
    /// sliced like any other Naive frame.
    fn open_first_lesson(
        &mut self,
        lesson: crate::teaching::lesson::Lesson,
        step: Option<usize>,
        flags: &Scenario,
    ) {
        let before = self.settings.clone();
        self.start_lesson_at(lesson, step.map_or(0, |n| n.saturating_sub(1)));
        flags.apply_named(&mut self.settings);
        changes::apply_view(&flags.view, &mut self.view);
        self.settle(&before);
        self.refresh_lesson();
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
            (None, Default::default())
        } else {
            let (actions, pass) = self.overlay_pass();
            (Some(actions), pass)
        };
        self.input(pass);
        // Without a pass the overlay's panels stay where it last drew them:
        // the lessons dock keeps the world framed beside it in the picture.
        if let Some(actions) = actions {
            self.overlay_actions(actions);
        }
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
        self.placement.panel = actions.panel;
        self.apply_presentation();
        (actions, pass)
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

    /// Records the frame for the overlay, saves the pictures asked for,
    /// then writes the screenshot and ends the program after the last frame.
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
        self.record_picture(now);
        // While a worker has the simulation, the line of the last step stays.
        if self.worker.is_none() {
            self.stats.selected = self.selected_unit();
        }
        self.deliver_exports();
        if self.last_frame.is_none_or(|n| self.frame < n) {
            return None;
        }
        Some(self.write_screenshot())
    }

    /// Adds the step whose picture was just finished to the timings graph:
    /// one sample per step, its phases and the time its picture took to
    /// draw. A picture of a step of other settings than the current ones
    /// (begun before a change, or deferred across one) goes into the graph
    /// but not into the means.
    fn record_picture(&mut self, now: f64) {
        if !(std::mem::take(&mut self.pacing.picture_done) && self.pacing.picture_of_step) {
            return;
        }
        let old_work = !self.stats.is_current(&self.settings);
        self.stats
            .history
            .record(PhaseSample::of(now, &self.stats.step, self.stats.render_s));
        if std::mem::take(&mut self.pacing.restart_after_picture) || old_work {
            self.stats.history.restart();
        }
    }

    /// The selected unit's line for the overlay, if a unit is selected and
    /// stored.
    fn selected_unit(&self) -> Option<SelectedUnit> {
        let sim = &self.sim;
        let i = self.selection.index().filter(|&i| i < sim.len())?;
        Some(SelectedUnit {
            id: sim.store().hot(i).id,
            neighbors: sim.neighbor_count(i),
            enemies: sim.store().hot(i).enemies,
            follow: self.selection.follows(),
            inspected: (self.inspected == Some(i)).then_some((
                self.inspection.candidates.len(),
                self.inspection.neighbors.len(),
            )),
        })
    }
}

/// The renderer of `kind`'s mesh with room for the units the slider
/// offers (or `units`, when more), and the overlay's first stats: the cores,
/// the help rows and the mesh's sizes (with the warning when the mesh file
/// could not be read and the built-in one is drawn).
///
/// # Errors
/// One line when the render pipeline cannot be built.
fn open_renderer(kind: UnitMeshKind, units: usize) -> Result<(UnitRenderer, FrameStats), String> {
    let (mesh, mesh_warning) = load_unit_kind(kind, &asset_dirs());
    let renderer = UnitRenderer::new(&mesh, units.max(units_range().1))
        .map_err(|e| format!("render pipeline: {e}"))?;
    let mut stats = FrameStats {
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        help: keys::help_rows(),
        ..Default::default()
    };
    picture::record_mesh(&mut stats, &renderer, mesh_warning);
    Ok((renderer, stats))
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
