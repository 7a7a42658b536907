//! The cell-size sweep's widgets: the button that starts it (under the
//! cell-size slider) and its window: a progress bar while it runs, then two
//! plots against the cell size (log scale) — median query time, and
//! candidates tested per neighbor found — with the fastest cell size marked,
//! and "Use best" / "Close".
//!
//! Widgets only: they read a [`CellSweep`] (the frame loop's copy in
//! [`FrameStats::sweep`]) and return a [`SweepAction`] for the frame loop,
//! which owns the sweep and steps the simulation with its cell sizes.

use egui_macroquad::egui;
use egui_plot::{
    uniform_grid_spacer, GridInput, GridMark, Line, LineStyle, MarkerShape, PlotPoints, Points,
    VLine,
};

use crate::engine::sim::Settings;
use crate::engine::spatial::Strategy;
use crate::format::{length, thousands};
use crate::measure::sweep::{
    standard_ratios, CellSweep, SweepPoint, SWEEP_FRAMES_PER_POINT, SWEEP_ROUNDS,
    SWEEP_SKIP_ABOVE_S, SWEEP_SLOW_ABOVE_S, SWEEP_SLOW_FRAMES,
};
use crate::window::ui::stats::FrameStats;

/// What the sweep's widgets ask the frame loop to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepAction {
    /// Start a sweep at the current settings (replacing a finished one).
    Start,
    /// Set the cell size to the fastest measured one (and stop the cell
    /// following the radius), and close the sweep.
    UseBest,
    /// Cancel the running sweep, or close the finished one.
    Close,
    /// Save the curves as a chart (PNG and SVG).
    SaveChart,
    /// Save the curves as CSV.
    SaveCsv,
}

const QUERY_COLOR: egui::Color32 = egui::Color32::from_rgb(160, 220, 80);
const CANDIDATE_COLOR: egui::Color32 = egui::Color32::from_rgb(90, 150, 255);
const BEST_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 210, 60);
const NOTE_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 190, 80);

/// The "Cell-size sweep" button with its tooltip (disabled for Naive, which
/// has no grid), or a compact progress bar while a sweep runs. Adds to the
/// current row of `ui` (it shares the grid's row in the overlay).
pub fn button(ui: &mut egui::Ui, s: &Settings, stats: &FrameStats) -> Option<SweepAction> {
    if let Some(sw) = stats.sweep.as_ref().filter(|sw| !sw.is_done()) {
        ui.add(
            egui::ProgressBar::new(sw.progress())
                .show_percentage()
                .desired_width(90.0),
        )
        .on_hover_text("Cell-size sweep running: see its window; key \\ cancels it.");
        return None;
    }
    let q = standard_ratios();
    ui.add_enabled(
        s.strategy != Strategy::Naive,
        egui::Button::new("Cell-size sweep"),
    )
    .on_hover_text(format!(
        "Measure the query time at this unit count and radius for {} cell sizes from {} r to {} r (three per doubling), {} frames each after a warm-up frame, in {} rounds that visit the cell sizes in turn, and plot query ms (with the rounds' range) and candidates tested per neighbor against the cell size. The units keep moving; your cell size changes only if you choose \"Use best\". Cell sizes below the smallest allowed here, or whose step would take more than {:.0} s, are skipped; those whose step takes more than {:.0} ms are measured over {} frames; each is listed (key \\). A finished sweep is kept in the compare panel as a curve.",
        q.len(),
        q[0],
        q[q.len() - 1],
        SWEEP_FRAMES_PER_POINT,
        SWEEP_ROUNDS,
        SWEEP_SKIP_ABOVE_S,
        SWEEP_SLOW_ABOVE_S * 1e3,
        SWEEP_SLOW_FRAMES
    ))
    .on_disabled_hover_text("Naive has no grid: choose Grid or SortedGrid to sweep the cell size.")
    .clicked()
    .then_some(SweepAction::Start)
}

/// The sweep's window: what it measures, its progress, the plots and the
/// notes; `current_cell` (world units) is the user's cell size, marked in the
/// plots; `place` docks it (above the lessons panel) instead of where the
/// user leaves it. Returns the button clicked, if any.
pub fn window(
    ctx: &egui::Context,
    sw: &CellSweep,
    current_cell: f32,
    place: Option<egui::Rect>,
) -> Option<SweepAction> {
    let mut action = None;
    frame(ctx, place).show(ctx, |ui| {
        egui::ScrollArea::vertical()
            .id_salt("sweep window")
            .show(ui, |ui| {
                work_line(ui, sw);
                status(ui, sw);
                plots(ui, sw, current_cell);
                notes(ui, sw);
                action = close_buttons(ui, sw);
                if sw.is_done() && !sw.points().is_empty() {
                    action = save_buttons(ui).or(action);
                }
            });
    });
    action
}

/// The sweep window's frame: docked at `place`, or by default at the
/// screen's top right, never taller than either.
fn frame(ctx: &egui::Context, place: Option<egui::Rect>) -> egui::Window<'static> {
    let screen = ctx.screen_rect();
    let x = screen.right() - 460.0;
    // Never taller than the screen (or its docked place): on a small one (a
    // projector at a large UI scale) the content scrolls and its buttons
    // stay reachable.
    let window = egui::Window::new("Cell-size sweep").resizable(false);
    match place {
        Some(r) => window
            .id(egui::Id::new("sweep docked"))
            .fixed_pos(r.min)
            .default_width(r.width())
            .max_height((r.height() - 40.0).max(60.0)),
        None => window
            .default_pos([x.max(380.0), 10.0])
            .default_width(440.0f32.min(screen.width() - 20.0).max(200.0))
            .max_height(screen.height() - 30.0),
    }
}

/// Draws the line naming the work swept: units, radius, strategy (and
/// kernel), layout and threads.
fn work_line(ui: &mut egui::Ui, sw: &CellSweep) {
    let w = sw.work();
    // Grid tests one unit at a time through the layout: no kernel to name.
    let kernel = match w.strategy {
        crate::engine::spatial::Strategy::Grid => String::new(),
        _ => format!(" / {}", w.kernel.name()),
    };
    ui.label(format!(
        "{} units, r = {}, {}{kernel}, {} layout, {} thread(s)",
        thousands(w.units as u64),
        length(w.radius),
        w.strategy.name(),
        w.layout.name(),
        sw.threads()
    ));
}

/// Draws where the sweep stands: stopped early, the progress bar while it
/// runs, or the fastest cell size once it is done.
fn status(ui: &mut egui::Ui, sw: &CellSweep) {
    // A stopped sweep measured some cell sizes in fewer rounds or
    // not at all: it names no fastest.
    let best = sw.best().filter(|_| sw.stopped().is_none());
    match (sw.cell_size(), best) {
        (_, None) if sw.stopped().is_some() => {
            ui.label(
                egui::RichText::new(format!(
                    "Stopped before its end ({}): the points measured so far are drawn, but not every cell size was measured in every round, so no fastest is named. Start it again (key \\) to compare them all.",
                    sw.stopped().unwrap_or_default()
                ))
                .color(super::colors::NOTICE_COLOR),
            );
        }
        (Some(cell), _) => {
            ui.add(
                egui::ProgressBar::new(sw.progress())
                    .show_percentage()
                    .text(format!(
                        "measuring cell {} ({:.2} r)",
                        length(cell),
                        cell / sw.radius()
                    )),
            );
        }
        (None, Some(b)) => fastest(ui, sw, b),
        (None, None) => {
            ui.label("No cell size was measured.");
        }
    }
}

/// Draws the finished sweep's fastest cell size `b` and the cell sizes
/// within the machine's noise of it.
fn fastest(ui: &mut egui::Ui, sw: &CellSweep, b: &SweepPoint) {
    ui.label(
        egui::RichText::new(format!(
            "Fastest: cell {} ({:.2} r), query {:.3} ms, {:.1} candidates per neighbor",
            length(b.cell_size),
            b.ratio,
            b.query_ms,
            b.candidates_per_neighbor
        ))
        .color(BEST_COLOR),
    );
    let cells = crate::teaching::lesson::text::metrics::best_cells(sw);
    if cells.len() > 1 {
        ui.label(format!(
            "Within this machine's noise of it: {} (their rounds overlap the fastest's)",
            crate::teaching::lesson::text::metrics::cells_text(&cells)
        ))
        .on_hover_text("A cell size is beaten only where every round of the fastest lies below every round of it; here the rounds do not tell these apart.");
    }
}

/// Draws the "Use best" and "Close" (or "Cancel") row; returns the button
/// clicked, the later one when both are.
fn close_buttons(ui: &mut egui::Ui, sw: &CellSweep) -> Option<SweepAction> {
    ui.horizontal(|ui| {
        let mut action = None;
        let best = sw.best().filter(|_| sw.is_done() && sw.stopped().is_none());
        let use_best = ui
            .add_enabled(best.is_some(), egui::Button::new("Use best"))
            .on_hover_text(match best {
                Some(b) => format!(
                    "Set the cell size to {} and stop it following the radius.",
                    length(b.cell_size)
                ),
                None => String::new(),
            })
            .on_disabled_hover_text("Available when the sweep is done.");
        if use_best.clicked() {
            action = Some(SweepAction::UseBest);
        }
        let (label, tip) = if sw.is_done() {
            ("Close", "Close this window; your cell size stays as it is.")
        } else {
            (
                "Cancel",
                "Stop the sweep; your cell size stays as it is (key \\).",
            )
        };
        if ui.button(label).on_hover_text(tip).clicked() {
            action = Some(SweepAction::Close);
        }
        action
    })
    .inner
}

/// Draws the finished sweep's "Save chart" and "Save CSV" row; returns the
/// button clicked, the later one when both are.
fn save_buttons(ui: &mut egui::Ui) -> Option<SweepAction> {
    ui.horizontal_wrapped(|ui| {
        let mut action = None;
        // The browser build has no chart renderer (plotters does
        // not build for wasm32); the sweep's plot is not one of
        // the panels' whose pixels it saves.
        if ui
            .add_enabled(!crate::platform::browser::IN_BROWSER, egui::Button::new("Save chart"))
            .on_hover_text("Write the curves as spatial-query-lab-chart-NNN.png (1920x1080) and .svg: query ms with the rounds' range above, candidates per neighbor below, the machine and date in the caption.")
            .on_disabled_hover_text("Not in the browser build: Keep the sweep in the compare panel and save its chart there, or press F12 for a screenshot.")
            .clicked()
        {
            action = Some(SweepAction::SaveChart);
        }
        if ui
            .button("Save CSV")
            .on_hover_text("Write spatial-query-lab-sweep-NNN.csv (in the browser: a download): one line per cell size with the median query ms, its rounds' range, candidates per neighbor and rounds.")
            .clicked()
        {
            action = Some(SweepAction::SaveCsv);
        }
        action
    })
    .inner
}

/// Query ms and candidates per neighbor against log2(cell size), one plot
/// each, on the same x range; ticks at r/4, r/2, r, 2r, 4r, labeled in world units.
fn plots(ui: &mut egui::Ui, sw: &CellSweep, current_cell: f32) {
    query_plot(ui, sw, current_cell);
    candidates_plot(ui, sw, current_cell);
}

/// A cell size's x coordinate in the plots: log2 of it.
fn log_cell(cell: f32) -> f64 {
    (cell as f64).log2()
}

/// One of `sw`'s values per measured cell size, as plot points.
fn series(sw: &CellSweep, f: fn(&SweepPoint) -> f64) -> Vec<[f64; 2]> {
    sw.points()
        .iter()
        .map(|p| [log_cell(p.cell_size), f(p)])
        .collect()
}

/// The measured points of a curve: filled circles of radius 3.
fn dots<'a>(points: Vec<[f64; 2]>, color: egui::Color32) -> Points<'a> {
    Points::new(PlotPoints::from(points))
        .color(color)
        .radius(3.0)
        .shape(MarkerShape::Circle)
        .filled(true)
}

/// A sweep plot named `id`, 130 points tall: x over the standard ratios'
/// cell sizes (log2) with marks at thirds of a doubling, labeled in world
/// units at whole doublings; y from 0 with 1-2-5 steps.
fn plot_frame<'a>(id: &str, sw: &CellSweep) -> egui_plot::Plot<'a> {
    let r = sw.radius() as f64;
    let q = standard_ratios();
    let (lo, hi) = (
        log_cell(q[0] * sw.radius()),
        log_cell(q[q.len() - 1] * sw.radius()),
    );
    let ticks = move |input: GridInput| -> Vec<GridMark> {
        let (a, b) = input.bounds;
        (-6..=18)
            .map(|k| GridMark {
                value: r.log2() + k as f64 / 3.0 - 2.0,
                step_size: if k % 3 == 0 { 1.0 } else { 1.0 / 3.0 },
            })
            .filter(|m| (a..=b).contains(&m.value))
            .collect()
    };
    let tick_label = |m: GridMark, _: &std::ops::RangeInclusive<f64>| {
        if m.step_size >= 1.0 {
            length(m.value.exp2() as f32)
        } else {
            String::new()
        }
    };
    super::plot::fixed(id, 130.0)
        .include_x(lo - 0.15)
        .include_x(hi + 0.15)
        .include_y(0.0)
        .x_grid_spacer(ticks)
        .y_grid_spacer(uniform_grid_spacer(y_steps))
        .y_axis_formatter(|m, _| format!("{}", (m.value * 1e3).round() / 1e3))
        .x_axis_formatter(tick_label)
        .y_axis_min_width(34.0)
}

/// Draws the vertical lines of both plots: the fastest cell size `best`
/// and, when it is a size, the user's `current_cell`.
fn marks(p: &mut egui_plot::PlotUi, best: Option<&SweepPoint>, current_cell: f32) {
    if let Some(b) = best {
        p.vline(
            VLine::new(log_cell(b.cell_size))
                .color(BEST_COLOR)
                .name("fastest"),
        );
    }
    if current_cell.is_finite() && current_cell > 0.0 {
        p.vline(
            VLine::new(log_cell(current_cell))
                .color(egui::Color32::GRAY)
                .style(LineStyle::dashed_dense())
                .name("your cell size"),
        );
    }
}

/// Draws the legend row and the plot of the median query ms per cell size:
/// each point's range as a bar, the fastest as a diamond.
fn query_plot(ui: &mut egui::Ui, sw: &CellSweep, current_cell: f32) {
    let best = sw.best();
    let query = series(sw, |p| p.query_ms);
    ui.horizontal(|ui| {
        ui.colored_label(QUERY_COLOR, "— query ms (median; bars: the rounds' range)");
        ui.colored_label(BEST_COLOR, "| fastest");
        ui.colored_label(egui::Color32::GRAY, "¦ your cell size");
    });
    plot_frame("sweep_query", sw)
        .y_axis_label("query ms")
        .label_formatter(|_, v| format!("cell {}\n{:.3} ms", length(v.x.exp2() as f32), v.y))
        .show(ui, |p| {
            p.line(Line::new(PlotPoints::from(query.clone())).color(QUERY_COLOR));
            // Each point's range: see SweepPoint::query_range_ms.
            for pt in sw.points() {
                let (lo, hi) = pt.query_range_ms;
                p.line(
                    Line::new(PlotPoints::from(vec![
                        [log_cell(pt.cell_size), lo],
                        [log_cell(pt.cell_size), hi],
                    ]))
                    .color(QUERY_COLOR.gamma_multiply(0.5)),
                );
            }
            p.points(dots(query, QUERY_COLOR));
            if let Some(b) = best {
                p.points(
                    Points::new(PlotPoints::from(vec![[log_cell(b.cell_size), b.query_ms]]))
                        .color(BEST_COLOR)
                        .radius(6.0)
                        .shape(MarkerShape::Diamond)
                        .filled(true)
                        .name("fastest"),
                );
            }
            marks(p, best, current_cell);
        })
        .response
        .on_hover_text(
            "Median query-phase time at each cell size (ms). The yellow diamond is the fastest.",
        );
}

/// Draws the legend line and the plot of candidates tested per neighbor
/// found, per cell size.
fn candidates_plot(ui: &mut egui::Ui, sw: &CellSweep, current_cell: f32) {
    let cands = series(sw, |p| p.candidates_per_neighbor);
    ui.colored_label(CANDIDATE_COLOR, "— candidates tested per neighbor found");
    plot_frame("sweep_candidates", sw)
        .y_axis_label("tested / hit")
        .x_axis_label("cell size (world units, log scale)")
        .label_formatter(|_, v| {
            format!(
                "cell {}\n{:.2} tested per neighbor",
                length(v.x.exp2() as f32),
                v.y
            )
        })
        .show(ui, |p| {
            p.line(Line::new(PlotPoints::from(cands.clone())).color(CANDIDATE_COLOR));
            p.points(dots(cands, CANDIDATE_COLOR));
            marks(p, sw.best(), current_cell);
        })
        .response
        .on_hover_text("Distance tests per neighbor found: 1.0 would waste no test. Small cells test few extra candidates but visit many cells; large cells visit few cells but test many candidates. Grid searches each query's own block (about (2r + cell)² of area): 2.9 at r, 5.1 at 2r, 11.4 at 4r (100,000 uniform units, 2026-12-01). SortedGrid's fused pass searches one block per cell, the union of its units' blocks, where that is faster (at r / k the same cells; between r and 2r, where a cell holds too few units to split, up to 1.7 times Grid's: 7.1 vs 4.1 at 1.6r), and each unit's own block elsewhere (from 2r, as Grid; one block per cell there tested 11.4 at 2r and 44.5 at 4r).");
}

/// Grid steps of a short y axis: labels 1, 2 or 5 times a power of ten
/// apart, about three per plot (egui_plot's default steps by powers of ten,
/// which leaves a plot from 0 to 9 with one label), lines at half that.
fn y_steps(input: GridInput) -> [f64; 3] {
    let target = ((input.bounds.1 - input.bounds.0) / 3.0).max(1e-9);
    let p = 10f64.powf(target.log10().floor());
    let nice = match target / p {
        m if m <= 1.0 => p,
        m if m <= 2.0 => 2.0 * p,
        m if m <= 5.0 => 5.0 * p,
        _ => 10.0 * p,
    };
    [nice / 2.0, nice, 2.0 * nice]
}

/// The cell sizes clamped, skipped or dropped, collapsed when there are many.
fn notes(ui: &mut egui::Ui, sw: &CellSweep) {
    let notes = sw.notes();
    if notes.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("{} note(s)", notes.len()))
        .id_salt("sweep_notes")
        .default_open(notes.len() <= 4)
        .show(ui, |ui| {
            for n in notes {
                ui.add(
                    egui::Label::new(egui::RichText::new(n.to_string()).color(NOTE_COLOR)).wrap(),
                );
            }
        });
}
