//! The overlay's numbers of the last frames: FPS, the phase means and the
//! counters of the last step (pending, "–", while they are not yet
//! measured for the current settings), and the graph of recent frames.

use egui_macroquad::egui;
use egui_plot::{Line, PlotPoints, VLine};

use crate::engine::sim::Settings;
use crate::format::thousands;
use crate::settings::budget::SLICE_BUDGET_S;
use crate::window::render::RENDER_BUDGET_S;
use crate::window::ui::stats::{format_fps, FrameStats, PhaseMeans, PHASES};

use super::colors::{NOTICE_COLOR, PHASE_COLORS};

/// The id of the timings graph's plot (its [`egui_plot::PlotMemory`] holds
/// whether it follows the newest frames).
pub const TIMINGS_PLOT: &str = "timings graph";

/// How the overlay shows a value not yet measured for the current settings.
pub const PENDING: &str = "–";
/// The tooltip of a [`PENDING`] value.
pub(crate) const PENDING_TIP: &str = "Not measured yet for the current settings: the first frame with them has not completed (a slow frame is spread over refreshes, or a worker thread is preparing the units). The value appears when it completes; it is never shown as zero or as the previous setting's value.";

/// Allocations of the last step: [`PENDING`] when that step was not of the
/// current settings (`current`), "-" when it ran on a worker thread.
pub(crate) fn allocations_text(n: Option<u64>, current: bool) -> String {
    match (current, n) {
        (false, _) => PENDING.to_string(),
        (true, None) => "-".to_string(),
        (true, Some(n)) => n.to_string(),
    }
}

/// The headline of the timings section: the step's mean cost (with its
/// spread) and the secondary line with FPS and the render time.
pub(crate) fn headline(ui: &mut egui::Ui, s: &Settings, st: &FrameStats) {
    let m = st.means();
    // Numbers of another setting's frames, or none yet, show as pending.
    let current = st.is_current(s);
    let means = st.means_current(s);
    let ms = |v: f32| {
        if means {
            format!("{v:.2} ms")
        } else {
            PENDING.to_string()
        }
    };
    let estimate = if current && st.step.slices > 1 {
        " (estimate)"
    } else {
        ""
    };
    // The headline is the simulation's own cost, not FPS: FPS falls as the
    // query gets faster when slow steps are spread over refreshes or handed
    // to a worker, and drawing on a software rasterizer dominates it. Where
    // the work on screen was measured quietly (the compare panel, a lesson),
    // that measurement is the headline: the same engine and estimator as
    // the panels, so the two never disagree.
    let worker = current && st.step_allocations.is_none() && st.step.total_s() > 0.0;
    if let Some(q) = &st.quiet {
        ui.colored_label(NOTICE_COLOR, format!("measuring ({:.0}%): the scene is paused", q.progress * 100.0))
            .on_hover_text("A measurement runs on fresh simulations, as `lesson` and `bench` run headless; the scene waits so that drawing does not compete with it.");
    }
    if let Some(q) = &st.measured_now {
        ui.horizontal_wrapped(|ui| {
            ui.label(egui::RichText::new(format!("step {:.2} ms", q.median_ms)).size(22.0).strong())
                .on_hover_text(format!("Measured quietly in the {} for exactly the work on screen: the median of {} round medians of {} frames each, every round on a fresh simulation with the scene paused. The live frames below compete with the drawing.", q.source, q.rounds, q.frames));
            ui.label(egui::RichText::new(format!("measured: {} rounds, {:.2}-{:.2}", q.rounds, q.range_ms.0, q.range_ms.1)).weak());
        });
        ui.label(egui::RichText::new(format!("live, while drawing: {}", ms(m.engine_ms()))).weak())
            .on_hover_text(format!("The live frames' mean ({}). The software rasterizer draws the scene on the same cores, so live numbers read higher than a quiet measurement.{}", m.describe(), if means { String::new() } else { format!(" {PENDING}: {PENDING_TIP}") }));
    } else {
        ui.horizontal_wrapped(|ui| {
            ui.label(egui::RichText::new(format!("step {}", ms(m.engine_ms()))).size(22.0).strong())
                .on_hover_text(format!("The simulation's own cost per step, live: move + rebuild + query + apply, {}. The drawing runs on the same cores, so live numbers read higher than a quiet measurement: press Enter to measure the current settings with the scene paused (the compare panel). FPS is not the measure of it: slow steps are spread over refreshes or run on a worker thread, and drawing (on a software rasterizer here) takes most of each refresh.{}", m.describe(), if means { String::new() } else { format!(" {PENDING}: {PENDING_TIP}") }));
            ui.label(egui::RichText::new("live").weak());
            if means && m.frames > 1 {
                let (lo, hi) = m.engine_range_ms;
                let busy = lo > 0.0 && (hi / lo) as f64 > crate::measure::BUSY_SPREAD;
                let text = format!("min {lo:.2}, max {hi:.2}");
                if busy {
                    ui.colored_label(NOTICE_COLOR, format!("{text}: spread {:.1}x", hi / lo))
                        .on_hover_text("The frames averaged disagree by more than 1.5x: the machine was busy (other programs, the drawing), or some frames did extra work (a reorder, a respawn). For numbers to keep, use the compare panel (Enter): it measures quietly in rounds and reports their range.");
                } else {
                    ui.label(egui::RichText::new(text).weak());
                }
            }
        });
    }
    let marks = match (estimate.is_empty(), worker) {
        (false, _) => " · sum of slices: an estimate",
        (true, true) => " · stepped on the worker thread",
        _ => "",
    };
    ui.label(
        egui::RichText::new(format!(
            "{} FPS · render {}{marks}",
            format_fps(st.fps),
            ms(m.ms[4])
        ))
        .weak(),
    )
    .on_hover_text("Secondary: frames per second over the last half second, and the time spent drawing the picture (CPU side; a software rasterizer here). Both depend on the drawing as much as on the simulation.");
}

/// The timings section under the graph: the slowest refresh, what the means
/// cover, the cache counters, progress of slow frames and pictures, the phase
/// table and the unit count.
pub(crate) fn details(ui: &mut egui::Ui, s: &Settings, st: &FrameStats) {
    let m = st.means();
    let current = st.is_current(s);
    let means = st.means_current(s);
    coverage(ui, st, &m, means);
    cache_counters(ui, st, current);
    spread_work(ui, st, current);
    egui::Grid::new("phases")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            phase_rows(ui, &m, means);
            counter_rows(ui, st, current);
        });
    ui.label(format!(
        "{} units, world {:.0} x {:.0}",
        thousands(st.units as u64),
        st.world,
        st.world
    ));
}

/// Draws what the numbers cover: the slowest refresh lately, the frames the
/// means `m` span (pending unless `means`), and the clock's resolution where
/// it is coarse.
fn coverage(ui: &mut egui::Ui, st: &FrameStats, m: &PhaseMeans, means: bool) {
    if let Some(slow) = st.slowest_s {
        ui.label(egui::RichText::new(format!("slowest refresh of the last 128: {:.0} ms", slow * 1e3)).weak())
            .on_hover_text("The longest wait between two window refreshes lately: what the window felt like at its worst. A naive frame, a big picture, a respawn or a sweep is spread over refreshes so this stays below 250 ms.");
    }
    let covers = if means {
        m.describe()
    } else {
        "pending, the first frame with these settings is in progress".to_string()
    };
    ui.label(egui::RichText::new(format!("phase times: {covers}")).weak());
    if let Some(note) = crate::platform::clock::RESOLUTION_NOTE {
        ui.label(egui::RichText::new("clock: performance.now(), 0.1 ms steps in Chromium").weak())
            .on_hover_text(note);
    }
}

/// Draws the cache misses per query of the last step when it is `current`
/// and counted, or why the hardware counters are unavailable.
fn cache_counters(ui: &mut egui::Ui, st: &FrameStats, current: bool) {
    match (&st.counters_unavailable, st.step.query_cache) {
        (None, Some(c)) if current => {
            let llc = st.llc_event;
            let n = st.units.max(1) as f64;
            ui.label(format!(
                "cache misses per query: L1D {:.2}, last level {:.2}",
                c.l1d as f64 / n,
                c.llc as f64 / n
            ))
            .on_hover_text(format!("Hardware counters (perf_event_open) around the last step's query phase, all its threads: L1D read misses and {llc}, divided by the queries."));
        }
        (Some(why), _) => {
            let text = if cfg!(target_family = "wasm") {
                "hardware counters unavailable in the browser"
            } else {
                "hardware counters unavailable"
            };
            ui.label(egui::RichText::new(text).weak())
                .on_hover_text(format!("{why}. Virtual machines and containers often expose no performance counters, and a perf_event_paranoid above 2 forbids them. scripts/cache-report.sh simulates the caches with valgrind instead."));
        }
        _ => {}
    }
}

/// Draws the work spread beyond one refresh: units being prepared on a
/// worker, a frame's query slices in progress, the last `current` frame's
/// slice count, and a picture drawn over several refreshes.
fn spread_work(ui: &mut egui::Ui, st: &FrameStats, current: bool) {
    if let Some(what) = &st.preparing {
        ui.colored_label(NOTICE_COLOR, what)
            .on_hover_text("Spawning or re-storing this many units takes longer than a refresh may; a worker thread does it while the window shows the last picture and keeps answering.");
    }
    if let Some((done, of)) = st.slice_progress {
        ui.label(format!(
            "frame in progress: {} of {} units queried ({:.0}%)",
            thousands(done as u64),
            thousands(of as u64),
            100.0 * done as f64 / of.max(1) as f64
        ))
        .on_hover_text(format!("This frame's queries take longer than a refresh may, so each refresh runs a slice of them (about {:.0} ms); the picture shows the last complete frame and the window keeps answering.", SLICE_BUDGET_S * 1e3));
    }
    if current && st.step.slices > 1 {
        ui.label(format!(
            "last frame spread over {} slices: engine and query times are their sum, an estimate of one whole frame",
            st.step.slices
        ))
        .on_hover_text(format!("No refresh runs more than about {:.0} ms of queries (Naive, and Grid when its frame is slow, e.g. a million units through AoS pointers); the sum of the slices estimates what the frame would take in one go. The units move once per whole frame.", SLICE_BUDGET_S * 1e3));
    }
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
}

/// Draws the phase table's rows of mean ms, one per phase of [`PHASES`]
/// ([`PENDING`] unless `means`).
fn phase_rows(ui: &mut egui::Ui, m: &PhaseMeans, means: bool) {
    let tips = [
        "Move every unit and bounce off the border.",
        "Rebuild the spatial index from the new positions (and reorder the units when due).",
        "One neighbor query per unit.",
        "Separation steering and enemy counts from the query results (neighbor lists, or the fused pass's sums).",
        "Draw the picture of the last step: upload the instances and issue the draws, all its slices (CPU side; packing the instances is not included).",
    ];
    for ((name, v), tip) in PHASES.iter().zip(m.ms).zip(tips) {
        ui.label(*name).on_hover_text(tip);
        if means {
            ui.monospace(format!("{v:9.3} ms"));
        } else {
            ui.monospace(format!("{PENDING:>12}"))
                .on_hover_text(PENDING_TIP);
        }
        ui.end_row();
    }
}

/// Draws the phase table's rows of the last step's counters: threads,
/// candidates, neighbors, tests per hit and allocations ([`PENDING`] unless
/// that step is `current`).
fn counter_rows(ui: &mut egui::Ui, st: &FrameStats, current: bool) {
    let q = st.step.query;
    let counted = |v: String| if current { v } else { PENDING.to_string() };
    let rows = [
        (
            "threads",
            counted(st.step.threads.to_string()),
            "Threads the last frame ran on: the count asked for, or 1 when the OS refused to start them (a notice says why).",
        ),
        (
            "candidates / frame",
            counted(thousands(q.candidates)),
            "Entries run through the distance test in the last frame.",
        ),
        (
            "neighbors / frame",
            counted(thousands(q.neighbors)),
            "Neighbor pairs found in the last frame (each unit lists its own). The same whatever the strategy or kernel.",
        ),
        (
            "tested per hit",
            counted(format!(
                "{:.1}",
                q.candidates as f64 / q.neighbors.max(1) as f64
            )),
            "Candidates per neighbor found: 1.0 would waste no test; the naive scan tests everything.",
        ),
        (
            "allocations / frame",
            allocations_text(st.step_allocations, current),
            "Heap allocations during the last simulation step (counting global allocator); \"-\" when the step ran on a worker thread, where the process-wide count would include the window's own.",
        ),
    ];
    for (name, value, tip) in rows {
        ui.label(name).on_hover_text(tip);
        let shown = ui.monospace(format!("{value:>12}"));
        if !current {
            shown.on_hover_text(PENDING_TIP);
        }
        ui.end_row();
    }
}

/// The engine phases of the recent frames. Render time is listed, not
/// graphed: on a software rasterizer it would flatten everything else. The
/// legend sits above the plot, so it never hides the newest frames.
pub(crate) fn timing_graph(ui: &mut egui::Ui, st: &FrameStats) {
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
    // Fixed: a right-drag (the camera's pan) box-zoomed it, and a zoomed
    // plot stops following the newest frames for good.
    super::plot::fixed("timings", 130.0)
        .id(egui::Id::new(TIMINGS_PLOT))
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
