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
//!    `Picture::pack` goes on (within a budget per refresh); when the
//!    last picture is complete, `App::step` (one step call; the selection
//!    follows its unit) and `App::begin_picture` (ground, grid, query circle
//!    and the instances of this step);
//! 5. `App::draw`: draws the picture within [`RENDER_BUDGET_S`] (all of it
//!    when it fits, else a slice per refresh:
//!    [`ProgressiveScene`](crate::window::render::ProgressiveScene)) and shows
//!    the last complete one; then `EguiHost::draw` paints the overlay on top;
//! 6. `App::finish`: frame statistics, the screenshot and the exit.
//!
//! `App` keeps the frame loop, the settings and the simulation; every other
//! part owns its state in a type of its own file: the step calls and the
//! worker thread (`stepping.rs`, `worker.rs`), the budget guards
//! (`guards.rs`), the picture (`picture.rs`), picking and the query
//! inspector (`picking.rs`), quiet measurements (`quiet.rs`), the frame
//! counters (`clock.rs`), the scenario files (`scenarios.rs`), and the
//! panels: the cell-size sweep (`sweep.rs`), compare (`compare.rs`),
//! lessons with the presenter view (`lesson.rs`, `presenter.rs`), the
//! memory view (`memory_panel.rs`), share (`share.rs`) and the exports
//! (`exports.rs`). A panel's methods read a narrow context and write what
//! they ask of the rest of the window to a `Requests` sink (`requests.rs`),
//! which the frame loop carries out in order (as the overlay returns
//! [`OverlayActions`]). Setting changes and the overlay's requests are
//! dispatched in `changes.rs`, keys and the mouse in `input.rs`, the
//! camera's framing beside the panel in `presentation.rs`. Submodules hold
//! the pieces that are pure and tested headless: [`keys`],
//! [`pointer`](mod@pointer), [`selection`]; what the overlay shows is
//! [`crate::window::ui::stats::FrameStats`].

use crate::platform::browser;
mod changes;
mod clock;
mod compare;
mod exports;
pub mod files;
mod guards;
mod input;
pub mod keys;
mod lesson;
mod memory_panel;
mod picking;
mod picture;
pub mod pointer;
mod presentation;
mod presenter;
mod quiet;
pub mod render_bench;
mod requests;
mod scenarios;
pub mod selection;
mod share;
mod stepping;
mod sweep;
mod worker;

use clock::FrameClock;
use compare::ComparePanel;
use exports::Exports;
use guards::Guards;
use lesson::LessonPanel;
use memory_panel::MemoryPanel;
use picking::Picking;
use picture::Picture;
use presentation::OverlayHost;
use quiet::QuietHost;
use scenarios::Scenarios;
use share::Share;
use stepping::Stepping;
use sweep::SweepState;

use crate::platform::clock::Instant;
use std::path::PathBuf;

use glam::Vec3;
use macroquad::prelude::*;

use crate::engine::sim::{Settings, Simulation};
use crate::engine::spatial::Kernel;
use crate::settings::budget::{self, Budget, GuardNotice, NaiveCost};
use crate::settings::scenario::Scenario;
use crate::settings::view::ViewSettings;
use crate::window::render::mesh::asset_dirs;
use crate::window::render::{load_unit_kind, EguiHost, OrbitCamera, PassInput, UnitRenderer};
use crate::window::render::{UnitMeshKind, RENDER_BUDGET_S};
use crate::window::ui::overlay::units_range;
use crate::window::ui::stats::FrameStats;
use crate::window::ui::{Overlay, OverlayActions, ViewOptions};

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
    /// The scenario loaded with `--scenario`, already applied to `settings`.
    pub scenario: Option<LoadedScenario>,
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

/// A scenario read at start-up: its file and its values.
#[derive(Clone, Debug)]
pub struct LoadedScenario {
    /// The file it was read from (a bundled preset's name in the browser).
    pub file: PathBuf,
    /// Its values.
    pub scenario: Scenario,
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

/// Everything the window keeps between frames: the settings and the
/// simulation the frame loop runs, and each part's own state. At most 20
/// fields, as every struct of this module (a test checks): a part that
/// grows gets a type of its own, not more fields here.
struct App {
    /// The simulation's settings, as the overlay, the keys and the panels
    /// leave them.
    settings: Settings,
    /// What the window shows and how: panels open, colors, unit mesh, UI scale.
    view: ViewOptions,
    /// The simulation (an empty stand-in while a worker thread has it).
    sim: Simulation,
    /// The step calls: when the next one runs, how much of a frame it
    /// runs, and the worker thread that has the simulation for long ones.
    stepping: Stepping,
    /// The camera.
    camera: OrbitCamera,
    /// The overlay: egui, its widgets and where it last drew its panels.
    ui: OverlayHost,
    /// What the overlay shows, filled as the frame runs.
    stats: FrameStats,
    /// The picture: renderer, progressive scene and its pacing.
    picture: Picture,
    /// The budget guards and the notices they left.
    guards: Guards,
    /// The selected unit, the pointer, picking and the query inspector.
    picking: Picking,
    /// The quiet measurement running or waiting; the scene waits for it.
    quiet: QuietHost,
    /// Frames run, the frame the program ends after, the refresh rate.
    clock: FrameClock,
    /// The scenario files and the loaded one.
    scenarios: Scenarios,
    /// The cell-size sweep.
    sweep: SweepState,
    /// The compare panel's rows and curves.
    compare: ComparePanel,
    /// The lessons panel's lesson and list, and the presenter view.
    lessons: LessonPanel,
    /// The memory view's trace and cache model.
    memory: MemoryPanel,
    /// The pictures asked for, saved once the frame is drawn.
    exports: Exports,
    /// "Copy link" and "Copy command line".
    share: Share,
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
        let placement = presentation::Placement::new(framed, opts.fullscreen, opts.window_size);
        let mut app = App {
            stepping: Stepping::new(settings.spawn_key(), sim.world),
            settings,
            view,
            sim,
            camera,
            ui: OverlayHost {
                egui,
                overlay: Overlay::default(),
                placement,
            },
            stats,
            picture: Picture::new(renderer, opts.view.mesh),
            guards: Guards::new(budget, naive_cost),
            picking: Picking::default(),
            quiet: QuietHost::default(),
            clock: FrameClock::new(opts.frames.or(opts.screenshot.as_ref().map(|_| 60))),
            scenarios: Scenarios::default(),
            sweep: SweepState::new(opts.sweep),
            compare: ComparePanel::default(),
            lessons: LessonPanel::with_file(opts.lesson.clone()),
            memory: MemoryPanel::default(),
            exports: Exports::new(opts.screenshot),
            share: Share::new(opts.link_base.clone()),
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
        scenario: Option<LoadedScenario>,
        notices: Vec<GuardNotice>,
    ) {
        self.list_scenarios();
        self.list_lessons();
        if self.settings.units >= WORKER_UNITS {
            // `--select` waits for the units.
            self.picking.select_at_start = select;
            self.start_preparing(false);
        } else if let Some(id) = select {
            self.select_start(id);
        }
        if let Some(LoadedScenario { file, scenario: sc }) = scenario {
            self.stats.scenario = Some((sc.name, sc.description));
            self.scenarios.file = Some(file);
        }
        self.add_notices(notices);
        self.update_limits();
    }

    /// One frame; returns the exit code when the program should end.
    fn frame(&mut self) -> Option<i32> {
        self.clock.frame += 1;
        self.poll_quiet();
        // While a measurement runs on its thread, the window answers a few
        // times a second and leaves the cores to it.
        if self.quiet.threaded() {
            std::thread::sleep(std::time::Duration::from_secs_f64(quiet::IDLE_S));
        }
        let started = Instant::now();
        let before = self.settings.clone();
        // The screenshot's last frame runs the overlay once, after the step,
        // so it shows this frame's numbers.
        let last = self.clock.is_last();
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
        self.stepping.since_step += get_frame_time();
        self.next_picture(last);
        // The picture's slice gets what is left of this refresh's work budget.
        let spent = started.elapsed().as_secs_f64();
        self.draw(RENDER_BUDGET_S.min((REFRESH_WORK_S - spent).max(0.0)));
        if last {
            let _ = self.overlay_pass();
        }
        self.ui.egui.draw();
        self.finish()
    }

    /// Runs the overlay on this frame's input (painted later, in
    /// `App::frame`, on top of the scene).
    fn overlay_pass(&mut self) -> (OverlayActions, PassInput) {
        let App {
            ui,
            settings,
            view,
            stats,
            ..
        } = self;
        let OverlayHost {
            egui,
            overlay,
            placement,
        } = ui;
        let mut actions = OverlayActions::default();
        let pass = egui.run_overlay(|ctx| actions = overlay.show(ctx, settings, view, stats));
        placement.panel = actions.panel;
        self.apply_presentation();
        (actions, pass)
    }

    /// Selects unit `id` as `--select` does: as if clicked, followed, and
    /// looked at from close by.
    fn select_start(&mut self, id: u32) {
        let selection = &mut self.picking.selection;
        selection.select(id, true);
        let sim = &self.sim;
        if let Some(i) = selection.resolve(sim.handles(), |h| sim.resolve(h)) {
            let (x, z) = sim.store().pos(i);
            self.camera.target = Vec3::new(x, 0.0, z);
            self.camera.distance = 8.0 * self.settings.radius;
        }
    }

    /// Records the frame for the overlay, saves the pictures asked for,
    /// then writes the screenshot and ends the program after the last frame.
    fn finish(&mut self) -> Option<i32> {
        let now = get_time();
        self.clock.fps.tick(now);
        self.stats.fps = self.clock.fps.fps();
        self.stats.slowest_s = self.clock.fps.slowest();
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
        if self.stepping.worker.is_none() {
            self.stats.selected = self.picking.selected_unit(&self.sim);
        }
        self.deliver_exports();
        if !self.clock.is_last() {
            return None;
        }
        Some(self.write_screenshot())
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

#[cfg(test)]
mod tests {
    /// The most fields a struct of the frame loop has: more means a part
    /// of it wants a type of its own.
    const MAX_FIELDS: usize = 20;

    /// The braced structs of Rust source `src`, each with its field count
    /// (lines one level inside its braces that start a field).
    fn struct_fields(src: &str) -> Vec<(String, usize)> {
        let lines: Vec<&str> = src.lines().collect();
        let mut found = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let code = line.trim_start();
            let Some(rest) = code
                .strip_prefix("pub struct ")
                .or_else(|| code.strip_prefix("pub(super) struct "))
                .or_else(|| code.strip_prefix("struct "))
            else {
                continue;
            };
            if !rest.trim_end().ends_with('{') {
                continue;
            }
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            let indent = line.len() - code.len();
            let field = " ".repeat(indent + 4);
            let fields = lines[k + 1..]
                .iter()
                .take_while(|l| !(l.starts_with(&format!("{}}}", " ".repeat(indent)))))
                .filter(|l| l.starts_with(&field) && !l[field.len()..].starts_with([' ', '/', '#']))
                .filter(|l| l.contains(':'))
                .count();
            found.push((name, fields));
        }
        found
    }

    #[test]
    fn no_struct_of_the_frame_loop_has_more_than_twenty_fields() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/window/app");
        let mut seen = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let src = std::fs::read_to_string(&path).unwrap();
                seen.extend(struct_fields(&src));
            }
        }
        let over: Vec<_> = seen.iter().filter(|(_, n)| *n > MAX_FIELDS).collect();
        assert!(
            over.is_empty(),
            "structs over {MAX_FIELDS} fields: {over:?}"
        );
        // The count sees the frame loop's own struct and every field of it.
        let app = seen.iter().find(|(name, _)| name == "App");
        assert!(app.is_some_and(|&(_, n)| n >= 10), "{seen:?}");
    }
}
