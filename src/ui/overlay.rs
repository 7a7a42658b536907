//! The egui overlay: controls for every setting, notices that stay until
//! dismissed, per-phase timings (means over a time window and a graph of
//! recent frames), counters and the help window.
//!
//! Widgets only: it edits a plain [`Settings`] and [`ViewOptions`], reads a
//! plain [`FrameStats`], and returns [`OverlayActions`] for the frame loop.

use egui_macroquad::egui;
use egui_plot::{Line, Plot, PlotPoints, VLine};

use crate::app::stats::{format_fps, FrameStats, PHASES};
use crate::app::RENDER_BUDGET_S;
use crate::format::{length, thousands};
use crate::sim::{Reorder, Settings, Workload};
use crate::spatial::{Kernel, Strategy, MAX_CELLS};

/// Range of the unit-count slider (the command line allows up to 1,000,000).
pub const UNITS_RANGE: (usize, usize) = (1_000, 200_000);
/// Range of the radius slider, world units; the top is lowered to the pair
/// budget's limit at large unit counts.
pub const RADIUS_RANGE: (f32, f32) = (1.0, 100.0);
/// Largest cell size the slider offers, world units; the bottom is the
/// smallest cell the budgets allow ([`FrameStats::cell_min`]).
pub const CELL_MAX: f32 = 200.0;

/// Colors of the phases in the graph and its legend.
const PHASE_COLORS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(230, 90, 80),
    egui::Color32::from_rgb(90, 150, 255),
    egui::Color32::from_rgb(160, 220, 80),
    egui::Color32::from_rgb(220, 110, 230),
];
const NOTICE_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 190, 80);

/// Display options that are not simulation settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOptions {
    /// Overlay visible.
    pub show_overlay: bool,
    /// Grid lines at the cell size.
    pub show_grid: bool,
    /// Help window visible.
    pub show_help: bool,
    /// Uniform scale of the unit meshes.
    pub unit_scale: f32,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            show_overlay: true,
            show_grid: true,
            show_help: false,
            unit_scale: 2.0,
        }
    }
}

/// Requests from the overlay that the frame loop carries out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverlayActions {
    /// Respawn the units with the current settings.
    pub respawn: bool,
    /// Re-frame the camera on the world.
    pub reset_camera: bool,
    /// Clear the selected unit.
    pub deselect: bool,
    /// Start or stop the camera following the selected unit.
    pub toggle_follow: bool,
    /// Dismiss the notice with this index of [`FrameStats::notices`].
    pub dismiss: Option<usize>,
}

/// The overlay's own state: a unit count being edited (applied when the
/// drag or the text edit ends, since it respawns the world) and the panel's
/// height (it scrolls when the window is shorter).
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    units_edit: Option<usize>,
    /// Height of the panel's content in the last frame, points.
    content_height: f32,
}

impl Overlay {
    /// Draws the overlay and the help window, editing `settings` and `view` in place.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        settings: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
    ) -> OverlayActions {
        let mut act = OverlayActions::default();
        if view.show_help {
            help_window(ctx, &mut view.show_help, &stats.help);
        }
        if !view.show_overlay {
            return act;
        }
        // On a window too short for the whole panel, the panel scrolls
        // instead of losing its bottom; the height is last frame's content.
        let limit = ctx.screen_rect().height() - 80.0;
        let scroll = self.content_height > limit;
        let mut window = egui::Window::new("Spatial Query Lab")
            .default_pos([10.0, 10.0])
            .default_width(360.0)
            .resizable(false);
        if scroll {
            window = window.default_height(limit).max_height(limit);
        }
        window.show(ctx, |ui| {
            let mut body = |ui: &mut egui::Ui| {
                notices(ui, stats, &mut act);
                self.controls(ui, settings, view, stats, &mut act);
                ui.separator();
                timings(ui, stats);
            };
            self.content_height = if scroll {
                egui::ScrollArea::vertical()
                    .max_height(limit)
                    .show(ui, |ui| body(ui))
                    .content_size
                    .y
            } else {
                body(ui);
                ui.min_rect().height()
            };
        });
        act
    }

    fn controls(
        &mut self,
        ui: &mut egui::Ui,
        s: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
        act: &mut OverlayActions,
    ) {
        strategy_row(ui, s, stats);
        kernel_row(ui, s);
        let max_threads = stats.cores.max(s.threads).max(1);
        ui.add(egui::Slider::new(&mut s.threads, 1..=max_threads).text("threads"))
            .on_hover_text("Threads for move, rebuild, query and apply (rayon). Results are identical for every count (key T).");
        self.units_row(ui, s);
        egui::ComboBox::from_label("workload")
            .selected_text(s.workload.key())
            .show_ui(ui, |ui| {
                for w in Workload::ALL {
                    ui.selectable_value(&mut s.workload, w, w.key());
                }
            })
            .response
            .on_hover_text("Initial positions (respawns). uniform: the common case; clustered: 32 Gaussian blobs; hotspot: 10% of units in one small disk (the grid's worst case).");
        radius_and_cell_rows(ui, s, stats);
        order_row(ui, s);
        ui.add(egui::Slider::new(&mut s.speed, 0.0..=20.0).text("sim speed"))
            .on_hover_text("Simulated seconds per real second.");
        ui.add(egui::Slider::new(&mut s.separation, 0.0..=5.0).text("separation"))
            .on_hover_text("How strongly units steer away from their neighbors (the query results drive this).");
        ui.horizontal(|ui| {
            ui.checkbox(&mut s.paused, "pause").on_hover_text(
                "Freeze movement; the index and queries still run every frame (Space).",
            );
            ui.checkbox(&mut view.show_grid, "grid lines")
                .on_hover_text("Draw the grid at the cell size (G).");
            act.respawn |= ui
                .button("respawn")
                .on_hover_text("Respawn units from the seed (R).")
                .clicked();
            act.reset_camera |= ui
                .button("camera")
                .on_hover_text("Frame the whole world (C).")
                .clicked();
            if ui
                .button("?")
                .on_hover_text("Keyboard and mouse (F1).")
                .clicked()
            {
                view.show_help = !view.show_help;
            }
        });
        match stats.selected {
            Some(sel) => {
                ui.horizontal(|ui| {
                    ui.label(format!(
                        "unit #{}: {} neighbors, {} enemies in range",
                        sel.id, sel.neighbors, sel.enemies
                    ));
                    let follow = if sel.follow { "unfollow" } else { "follow" };
                    act.toggle_follow |= ui
                        .small_button(follow)
                        .on_hover_text("Camera follows the selected unit, or stops (F).")
                        .clicked();
                    act.deselect |= ui
                        .small_button("x")
                        .on_hover_text("Deselect (Esc).")
                        .clicked();
                });
            }
            None => {
                ui.label("Click a unit to show its query circle and neighbors.");
            }
        }
    }

    /// The unit count: a slider and a number box, applied when the drag ends
    /// or the edit is committed (Enter or focus lost), never per keystroke.
    fn units_row(&mut self, ui: &mut egui::Ui, s: &mut Settings) {
        let current = self.units_edit.unwrap_or(s.units);
        // Each widget edits its own copy: the slider clamps to its range, and
        // a value typed or dragged in the box must not pass through it.
        let (mut from_slider, mut from_box) = (current, current);
        let tip = "Unit count (respawns); the world grows to keep 16 neighbors per unit on average. Applied when you let go of the slider or press Enter.";
        ui.horizontal(|ui| {
            let slider = ui
                .add(
                    egui::Slider::new(
                        &mut from_slider,
                        widened(UNITS_RANGE.0, UNITS_RANGE.1, current),
                    )
                    .logarithmic(true)
                    .show_value(false),
                )
                .on_hover_text(tip);
            let shown = from_slider as f64;
            slider.widget_info(|| egui::WidgetInfo::slider(true, shown, "units"));
            let number = ui
                .add(
                    egui::DragValue::new(&mut from_box)
                        .range(1..=1_000_000)
                        .speed(50.0)
                        .update_while_editing(false),
                )
                .on_hover_text(tip);
            ui.label("units");
            for (r, v) in [(&slider, from_slider), (&number, from_box)] {
                if r.dragged() {
                    self.units_edit = Some(v);
                } else if r.drag_stopped() || r.changed() {
                    s.units = v.max(1);
                    self.units_edit = None;
                }
            }
        });
    }
}

/// `lo..=hi`, widened to include `current` (a value set elsewhere, e.g. on
/// the command line, is shown as it is, not clamped by the widget).
fn widened<T: PartialOrd + Copy>(lo: T, hi: T, current: T) -> std::ops::RangeInclusive<T> {
    let lo = if current < lo { current } else { lo };
    let hi = if current > hi { current } else { hi };
    lo..=hi
}

/// The top of the radius slider: [`RADIUS_RANGE`]'s, lowered to the pair
/// budget's limit at the current unit count (`radius_max`, world units).
pub fn radius_top(radius_max: f32) -> f32 {
    RADIUS_RANGE.1.min(radius_max).max(RADIUS_RANGE.0)
}

fn notices(ui: &mut egui::Ui, stats: &FrameStats, act: &mut OverlayActions) {
    for (k, text) in stats.notices.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .small_button("x")
                .on_hover_text("Dismiss this message.")
                .clicked()
            {
                act.dismiss = Some(k);
            }
            ui.add(egui::Label::new(egui::RichText::new(text).color(NOTICE_COLOR)).wrap());
        });
    }
    if !stats.notices.is_empty() {
        ui.separator();
    }
}

fn strategy_row(ui: &mut egui::Ui, s: &mut Settings, stats: &FrameStats) {
    ui.horizontal(|ui| {
        ui.label("Strategy")
            .on_hover_text("How each unit finds the units within the query radius (keys 1, 2, 3).");
        for st in Strategy::ALL {
            let limit = stats.naive_limit.filter(|_| st == Strategy::Naive);
            let refuse = limit.is_some_and(|l| s.units > l);
            let resp = ui
                .add_enabled(!refuse, egui::SelectableLabel::new(s.strategy == st, st.name()))
                .on_hover_text(st.describe())
                .on_disabled_hover_text(format!(
                    "Refused: Naive at {} units would take more than about a second per frame with {} on {} thread(s) (limit about {} units).",
                    thousands(s.units as u64),
                    s.kernel.name(),
                    s.threads,
                    thousands(limit.unwrap_or(0) as u64)
                ));
            if resp.clicked() {
                s.strategy = st;
            }
        }
    });
}

fn kernel_row(ui: &mut egui::Ui, s: &mut Settings) {
    ui.horizontal(|ui| {
        ui.label("Kernel")
            .on_hover_text("Instruction set of the distance test (key K cycles).");
        for k in Kernel::ALL {
            let resp = ui
                .add_enabled(
                    k.is_available(),
                    egui::SelectableLabel::new(s.kernel == k, k.name()),
                )
                .on_hover_text(format!("{} lane(s) per instruction", k.lanes()))
                .on_disabled_hover_text(format!("This CPU cannot run {}.", k.name()));
            if resp.clicked() {
                s.kernel = k;
            }
        }
    });
}

/// Radius and cell size: both sliders offer only values the engine uses as
/// given (the radius up to the pair budget's limit, the cell size down to the
/// grid's smallest), with two decimals everywhere.
fn radius_and_cell_rows(ui: &mut egui::Ui, s: &mut Settings, stats: &FrameStats) {
    let r_max = radius_top(stats.radius_max);
    let range = widened(RADIUS_RANGE.0, r_max, s.radius);
    ui.add(
        egui::Slider::new(&mut s.radius, range)
            .logarithmic(true)
            .custom_formatter(|v, _| length(v as f32))
            .text("query radius"),
    )
    .on_hover_text(format!(
        "Query radius r in world units (keys - and =). Neighbor: dx² + dz² <= r². Up to {} here: larger radii would find more than 40 million pairs per frame at this unit count.",
        length(r_max)
    ));
    let c_min = stats.cell_min.min(CELL_MAX);
    ui.horizontal(|ui| {
        let range = widened(c_min, CELL_MAX, s.cell_size);
        let cell = ui
            .add(
                egui::Slider::new(&mut s.cell_size, range)
                    .logarithmic(true)
                    .custom_formatter(|v, _| length(v as f32))
                    .text("cell size"),
            )
            .on_hover_text(format!(
                "Grid cell edge in world units (keys [ and ]); the grid rebuilds with it on the next frame. Small cells: fewer candidates, more cells to visit; large cells: many candidates. Down to {} here: the grid has at most {} cells over the world, and a tiny cell with a large radius would visit too many.",
                length(c_min),
                thousands(MAX_CELLS as u64)
            ));
        if cell.changed() {
            s.cell_follows_radius = false;
        }
        // The frame loop's guards make the cell follow the radius while this is on.
        ui.toggle_value(&mut s.cell_follows_radius, "= r")
            .on_hover_text("Keep the cell size equal to the query radius, also when the radius changes.");
    });
    match stats.step.grid {
        Some(g) if g.cells() > 0 => {
            ui.label(format!(
                "grid: {} x {} = {} cells of {}",
                g.nx,
                g.nz,
                thousands(g.cells() as u64),
                length(g.cell)
            ))
            .on_hover_text(
                "The grid the last frame used: columns x rows, and the cell edge in world units.",
            );
        }
        _ => {}
    }
}

fn order_row(ui: &mut egui::Ui, s: &mut Settings) {
    let every = widened(1, 240, s.reorder_every);
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("reorder")
            .selected_text(format!("order: {}", s.reorder.key()))
            .show_ui(ui, |ui| {
                for r in Reorder::ALL {
                    ui.selectable_value(&mut s.reorder, r, r.key());
                }
            })
            .response
            .on_hover_text("Memory order of the units' SoA arrays. off: spawn order (neighbors scattered in memory); cells: sorted by grid cell; morton: Z-order of cells. Sorted orders make queries and steering cache-friendly.");
        ui.add_enabled(
            s.reorder != Reorder::Off,
            egui::Slider::new(&mut s.reorder_every, every)
                .logarithmic(true)
                .text("every N frames"),
        )
        .on_hover_text("Frames between two reorders of the units: movement scatters a sorted order slowly, so a sort every few frames keeps most of the benefit for a fraction of its cost.")
        .on_disabled_hover_text("The units are kept in spawn order (order: off).");
    });
}

fn timings(ui: &mut egui::Ui, st: &FrameStats) {
    let m = &st.means;
    ui.label(format!(
        "{} FPS   engine {:.2} ms   render {:.2} ms",
        format_fps(st.fps),
        m.engine_ms(),
        m.ms[4]
    ))
    .on_hover_text(
        "Frames per second over the last half second; engine = move + rebuild + query + apply.",
    );
    ui.label(egui::RichText::new(format!("phase times: {}", m.describe())).weak());
    let pic = st.picture;
    if pic.refreshes > 1 {
        ui.label(format!(
            "picture: {} units drawn over {} refreshes ({:.2} s)",
            thousands(pic.instances as u64),
            pic.refreshes,
            pic.seconds
        ))
        .on_hover_text(format!("Drawing every unit takes longer than one refresh may ({:.0} ms of drawing), so the picture is drawn offscreen in slices while the screen shows the previous one and the overlay keeps answering; the simulation steps once per picture.", RENDER_BUDGET_S * 1e3));
    }
    let tips = [
        "Move every unit and bounce off the border.",
        "Rebuild the spatial index from the new positions (and reorder the units when due).",
        "One neighbor query per unit.",
        "Separation steering and enemy counts from the neighbor lists.",
        "Pack instances and submit the instanced draw (CPU side).",
    ];
    let q = st.step.query;
    egui::Grid::new("phases")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for ((name, v), tip) in PHASES.iter().zip(m.ms).zip(tips) {
                ui.label(*name).on_hover_text(tip);
                ui.monospace(format!("{v:9.3} ms"));
                ui.end_row();
            }
            let rows = [
                (
                    "candidates / frame",
                    thousands(q.candidates),
                    "Entries run through the distance test in the last frame.",
                ),
                (
                    "neighbors / frame",
                    thousands(q.neighbors),
                    "Neighbor pairs found in the last frame (each unit lists its own). The same whatever the strategy or kernel.",
                ),
                (
                    "tested per hit",
                    format!("{:.1}", q.candidates as f64 / q.neighbors.max(1) as f64),
                    "Candidates per neighbor found: 1.0 would waste no test; the naive scan tests everything.",
                ),
                (
                    "allocations / frame",
                    st.step_allocations.to_string(),
                    "Heap allocations during the last simulation step (counting global allocator).",
                ),
            ];
            for (name, value, tip) in rows {
                ui.label(name).on_hover_text(tip);
                ui.monospace(format!("{value:>12}"));
                ui.end_row();
            }
        });
    ui.label(format!(
        "{} units, world {:.0} x {:.0}",
        thousands(st.units as u64),
        st.world,
        st.world
    ));
    let [p, n, i] = st.stream_bytes;
    ui.label(format!(
        "streams: {p} B + {n} B per vertex (f32: 24 B), {i} B per instance; mesh {} vertices, {} triangles",
        st.mesh_vertices, st.mesh_triangles
    ))
    .on_hover_text("Stream 0: SNORM16 positions in the mesh bounding box. Stream 1: octahedral SNORM16 normals. Stream 2: per-instance position, heading, scale, color.");
    timing_graph(ui, st);
}

/// The engine phases of the recent frames. Render time is listed, not
/// graphed: on a software rasterizer it would flatten everything else. The
/// legend sits above the plot, so it never hides the newest frames.
fn timing_graph(ui: &mut egui::Ui, st: &FrameStats) {
    ui.horizontal(|ui| {
        for (name, color) in PHASES.iter().zip(PHASE_COLORS) {
            ui.colored_label(color, format!("— {name}"));
        }
    });
    let samples: Vec<_> = st.history.samples().collect();
    let newest = samples.len() as f64 - 1.0;
    let lines: Vec<Line> = (0..4)
        .map(|k| {
            let pts: PlotPoints = samples
                .iter()
                .enumerate()
                .map(|(i, s)| [i as f64 - newest, s.ms[k] as f64])
                .collect();
            Line::new(pts).name(PHASES[k]).color(PHASE_COLORS[k])
        })
        .collect();
    let since = st.history.frames_since_restart();
    let change = (since > 0 && since < samples.len()).then_some(0.5 - since as f64);
    Plot::new("timings")
        .height(130.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .include_y(0.0)
        .include_x(0.0)
        .x_axis_label("frames (0 = newest)")
        .y_axis_label("ms")
        .y_axis_min_width(26.0)
        .show(ui, |p| {
            for l in lines {
                p.line(l);
            }
            if let Some(x) = change {
                p.vline(VLine::new(x).color(egui::Color32::GRAY).name("setting changed"));
            }
        })
        .response
        .on_hover_text("Engine phases of the recent frames, ms. The grey line marks the last change of a setting that changes the work; the means above start there.");
}

fn help_window(ctx: &egui::Context, open: &mut bool, rows: &[(String, &'static str)]) {
    egui::Window::new("Keyboard and mouse")
        .open(open)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("help").striped(true).show(ui, |ui| {
                for (keys, what) in rows {
                    ui.monospace(keys);
                    ui.label(*what);
                    ui.end_row();
                }
            });
        });
}
