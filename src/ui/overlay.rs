//! The egui overlay: controls for every setting, per-phase timings (rolling
//! mean and a graph of recent frames), counters and the keyboard shortcuts.

use egui_macroquad::egui;
use egui_plot::{Legend, Line, Plot, PlotPoints};

use crate::sim::{Reorder, Settings, StepStats, Workload};
use crate::spatial::{Kernel, Strategy};

/// Frames kept for the timing graph.
pub const HISTORY: usize = 300;
/// Frames averaged for the rolling means.
pub const MEAN_WINDOW: usize = 60;
/// Range of the unit-count slider.
pub const UNITS_RANGE: (usize, usize) = (1_000, 200_000);

/// What the overlay shows about the last frame. Plain data, filled by the app.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// Engine phases of the last step.
    pub step: StepStats,
    /// CPU time to pack instances and submit the draw, seconds.
    pub render_s: f64,
    /// Frames per second (macroquad's estimate).
    pub fps: i32,
    /// Heap allocations made by the last simulation step.
    pub step_allocations: u64,
    /// Unit count.
    pub units: usize,
    /// World edge, world units.
    pub world: f32,
    /// Bytes per element of the three vertex streams: position, normal (per vertex), instance.
    pub stream_bytes: [usize; 3],
    /// Vertices of the unit mesh.
    pub mesh_vertices: usize,
    /// Triangles of the unit mesh.
    pub mesh_triangles: usize,
    /// Largest unit count at which Naive stays under about a second per frame with the current kernel.
    pub naive_limit: usize,
    /// A message to show (e.g. why a setting was refused).
    pub notice: Option<String>,
    /// The selected unit, its neighbor count and enemies in range.
    pub selected: Option<(usize, usize, u16)>,
    /// CPU cores available.
    pub cores: usize,
}

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

/// Requests from the overlay that the app carries out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverlayActions {
    /// Respawn the units with the current settings.
    pub respawn: bool,
    /// Re-frame the camera on the world.
    pub reset_camera: bool,
    /// Clear the selected unit.
    pub deselect: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    ms: [f32; 5],
}

const PHASES: [&str; 5] = ["move", "rebuild", "query", "apply", "render"];

/// The overlay's own state: the timing history and the slider being edited.
pub struct Overlay {
    history: Vec<Sample>,
    next: usize,
    filled: usize,
    units_edit: usize,
}

impl Overlay {
    /// An empty history; `units` seeds the unit-count slider.
    pub fn new(units: usize) -> Self {
        Overlay {
            history: vec![Sample::default(); HISTORY],
            next: 0,
            filled: 0,
            units_edit: units,
        }
    }

    /// Records one frame's timings (ring buffer, no allocation).
    pub fn record(&mut self, s: &FrameStats) {
        let st = &s.step;
        self.history[self.next] = Sample {
            ms: [
                (st.move_s * 1e3) as f32,
                (st.rebuild_s * 1e3) as f32,
                (st.query_s * 1e3) as f32,
                (st.apply_s * 1e3) as f32,
                (s.render_s * 1e3) as f32,
            ],
        };
        self.next = (self.next + 1) % HISTORY;
        self.filled = (self.filled + 1).min(HISTORY);
    }

    /// Mean milliseconds of each phase over the last [`MEAN_WINDOW`] frames.
    pub fn rolling_mean(&self) -> [f32; 5] {
        let k = self.filled.min(MEAN_WINDOW);
        let mut m = [0.0; 5];
        if k == 0 {
            return m;
        }
        for back in 1..=k {
            let s = &self.history[(self.next + HISTORY - back) % HISTORY];
            for (acc, v) in m.iter_mut().zip(s.ms) {
                *acc += v;
            }
        }
        m.map(|v| v / k as f32)
    }

    /// Forgets the history (after a respawn or a strategy change the old numbers mislead).
    pub fn clear_history(&mut self) {
        self.filled = 0;
    }

    /// Keeps the unit slider in step with settings changed elsewhere.
    pub fn sync_units(&mut self, units: usize) {
        self.units_edit = units;
    }

    /// Draws the overlay and edits `settings` and `view` in place.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        settings: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
    ) -> OverlayActions {
        let mut act = OverlayActions::default();
        if view.show_help {
            egui::Window::new("Keyboard and mouse")
                .open(&mut view.show_help)
                .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
                .resizable(false)
                .show(ctx, |ui| {
                    egui::Grid::new("help").striped(true).show(ui, |ui| {
                        for (k, what) in SHORTCUTS {
                            ui.monospace(*k);
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
                });
        }
        if !view.show_overlay {
            return act;
        }
        egui::Window::new("Spatial Query Lab")
            .default_pos([10.0, 10.0])
            .default_width(340.0)
            .resizable(false)
            .show(ctx, |ui| {
                self.controls(ui, settings, view, stats, &mut act);
                ui.separator();
                self.timings(ui, stats);
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
        if let Some(n) = &stats.notice {
            ui.colored_label(egui::Color32::from_rgb(255, 190, 80), n);
        }
        ui.horizontal(|ui| {
            ui.label("Strategy").on_hover_text("How each unit finds the units within the query radius (keys 1, 2, 3).");
            for st in Strategy::ALL {
                let refuse = st == Strategy::Naive && s.units > stats.naive_limit;
                let resp = ui
                    .add_enabled(!refuse, egui::SelectableLabel::new(s.strategy == st, st.name()))
                    .on_hover_text(st.describe());
                let resp = if refuse {
                    resp.on_disabled_hover_text(format!(
                        "Refused: Naive at {} units would take more than about a second per frame with {} (limit ≈ {} units).",
                        s.units,
                        s.kernel.name(),
                        stats.naive_limit
                    ))
                } else {
                    resp
                };
                if resp.clicked() {
                    s.strategy = st;
                }
            }
        });
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
        let max_threads = stats.cores.max(s.threads).max(1);
        ui.add(egui::Slider::new(&mut s.threads, 1..=max_threads).text("threads"))
            .on_hover_text("Threads for move, query, apply and the CSR rebuild (rayon). Results are identical for every count (key T).");

        let resp = ui
            .add(
                egui::Slider::new(&mut self.units_edit, UNITS_RANGE.0.min(s.units).max(1)..=UNITS_RANGE.1.max(s.units))
                    .logarithmic(true)
                    .text("units"),
            )
            .on_hover_text("Unit count; the world grows to keep 16 neighbors per unit on average. Applied when you let go.");
        if (resp.changed() && !resp.dragged()) || resp.drag_stopped() {
            s.units = self.units_edit.max(1);
        }
        egui::ComboBox::from_label("workload")
            .selected_text(s.workload.key())
            .show_ui(ui, |ui| {
                for w in Workload::ALL {
                    ui.selectable_value(&mut s.workload, w, w.key());
                }
            })
            .response
            .on_hover_text("uniform: the common case; clustered: 32 Gaussian blobs; hotspot: 10% of units in one small disk (the grid's worst case).");
        ui.add(
            egui::Slider::new(&mut s.radius, 1.0..=100.0)
                .logarithmic(true)
                .text("query radius"),
        )
        .on_hover_text("Query radius r in world units (keys - and =). Neighbor: dx² + dz² <= r².");
        ui.horizontal(|ui| {
            ui.add(egui::Slider::new(&mut s.cell_size, 0.5..=200.0).logarithmic(true).text("cell size"))
                .on_hover_text("Grid cell edge in world units (keys [ and ]). The grid rebuilds with it on the next frame. Small cells: fewer candidates, more cells to visit; large cells: many candidates.");
            if ui.small_button("= r").on_hover_text("Set the cell size to the query radius").clicked() {
                s.cell_size = s.radius;
            }
        });
        if let Some(c) = stats.step.cell_used {
            if (c - s.cell_size).abs() > 1e-3 * s.cell_size {
                ui.small(format!(
                    "cell size raised to {c:.2} to bound the number of cells"
                ));
            }
        }
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
                egui::Slider::new(&mut s.reorder_every, 1..=240).logarithmic(true).text("every N frames"),
            );
        });
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
            if ui
                .button("respawn")
                .on_hover_text("Respawn units from the seed (R).")
                .clicked()
            {
                act.respawn = true;
            }
            if ui
                .button("camera")
                .on_hover_text("Reset the camera (C).")
                .clicked()
            {
                act.reset_camera = true;
            }
            if ui
                .button("?")
                .on_hover_text("Keyboard and mouse (F1).")
                .clicked()
            {
                view.show_help = !view.show_help;
            }
        });
        if let Some((i, n, e)) = stats.selected {
            ui.horizontal(|ui| {
                ui.label(format!("unit #{i}: {n} neighbors, {e} enemies in range"));
                if ui
                    .small_button("x")
                    .on_hover_text("Deselect (Esc)")
                    .clicked()
                {
                    act.deselect = true;
                }
            });
        } else {
            ui.small("Click a unit to show its query circle and neighbors.");
        }
    }

    fn timings(&self, ui: &mut egui::Ui, st: &FrameStats) {
        let m = self.rolling_mean();
        let engine: f32 = m[..4].iter().sum();
        ui.label(format!(
            "{} FPS   engine {:.2} ms   render {:.2} ms",
            st.fps, engine, m[4]
        ));
        egui::Grid::new("phases")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                let tips = [
                    "Move every unit and bounce off the border.",
                    "Rebuild the spatial index from the new positions.",
                    "One neighbor query per unit.",
                    "Separation steering and enemy counts from the neighbor lists.",
                    "Pack instances and submit the instanced draw (CPU side).",
                ];
                for ((name, v), tip) in PHASES.iter().zip(m).zip(tips) {
                    ui.label(*name).on_hover_text(tip);
                    ui.monospace(format!("{v:8.3} ms"));
                    ui.end_row();
                }
            });
        let q = st.step.query;
        ui.label(format!(
            "candidates {}  neighbors {}  ({:.1} tested per hit)",
            group(q.candidates),
            group(q.neighbors),
            q.candidates as f64 / q.neighbors.max(1) as f64
        ))
        .on_hover_text("Per frame: entries run through the distance test, and pairs found. Neighbors stay the same whatever the strategy or kernel.");
        ui.label(format!("engine allocations/frame: {}", st.step_allocations))
            .on_hover_text(
                "Heap allocations during the last simulation step (counting global allocator).",
            );
        ui.label(format!(
            "{} units, world {:.0} x {:.0}",
            group(st.units as u64),
            st.world,
            st.world
        ));
        let [p, n, i] = st.stream_bytes;
        ui.label(format!(
            "streams: {p} B + {n} B per vertex (f32: 24 B), {i} B per instance; mesh {} vertices, {} triangles",
            st.mesh_vertices, st.mesh_triangles
        ))
        .on_hover_text("Stream 0: SNORM16 positions in the mesh bounding box. Stream 1: octahedral SNORM16 normals. Stream 2: per-instance position, heading, scale, color.");

        // The graph shows the engine phases; render time is listed above (on a
        // software rasterizer it would flatten everything else).
        let lines: Vec<Line> = (0..4)
            .map(|k| {
                let pts: PlotPoints = (0..self.filled)
                    .map(|t| {
                        let idx = (self.next + HISTORY - self.filled + t) % HISTORY;
                        [t as f64, self.history[idx].ms[k] as f64]
                    })
                    .collect();
                Line::new(pts).name(PHASES[k])
            })
            .collect();
        Plot::new("timings")
            .height(140.0)
            .legend(Legend::default())
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .include_y(0.0)
            .y_axis_label("ms")
            .show(ui, |p| {
                for l in lines {
                    p.line(l);
                }
            });
    }
}

/// The keyboard and mouse controls, as shown in the help window and the README.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("1 / 2 / 3", "strategy: Naive / Grid / SortedGrid"),
    ("K", "next available kernel"),
    ("T", "next thread count"),
    ("Space", "pause movement (queries keep running)"),
    ("[ / ]", "cell size smaller / larger"),
    ("- / =", "query radius smaller / larger"),
    ("G", "grid lines"),
    ("R", "respawn from the seed"),
    ("C", "reset camera"),
    ("H or Tab", "hide / show the overlay"),
    ("F1", "this help"),
    ("Esc", "deselect"),
    ("left drag", "orbit"),
    ("right / middle drag", "pan"),
    ("wheel", "zoom"),
    ("click", "select a unit: its query circle and neighbors"),
    ("WASD / arrows, Q / E", "pan, orbit"),
];

fn group(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
