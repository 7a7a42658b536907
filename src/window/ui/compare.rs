//! The compare panel: a window listing the kept measurements with their
//! spread, working set against this machine's caches and the comparison
//! with a baseline row the user picks; a bar chart of every row's step,
//! stacked by phase and normalized to the baseline; the kept cell-size
//! sweeps overlaid on one plot; and the exports.
//!
//! Widgets only: it reads a [`Comparison`] (and whether a measurement is
//! running) and returns [`CompareAction`]s for the frame loop, which owns
//! the rows and measures.

use egui_macroquad::egui;
use egui_plot::{Bar, BarChart, Legend, Line, PlotPoints, Points};

use crate::format::thousands;
use crate::measure::compare::{spread_warning, working_set_text, Comparison};
use crate::measure::machine::Machine;
use crate::measure::spread::PHASE_NAMES;

/// The id of the compare chart's plot; its screen rectangle is what "save
/// chart" writes.
pub const COMPARE_CHART: &str = "compare chart";

/// Colors of the phases in the bars (move, rebuild, query, apply), those of
/// the timings graph.
const PHASE_COLORS: [egui::Color32; 4] = super::colors::PHASE_COLORS;
/// Colors of the sweep curves, in turn.
const CURVE_COLORS: [egui::Color32; 5] = [
    egui::Color32::from_rgb(160, 220, 80),
    egui::Color32::from_rgb(90, 150, 255),
    egui::Color32::from_rgb(255, 170, 60),
    egui::Color32::from_rgb(220, 110, 230),
    egui::Color32::from_rgb(230, 90, 80),
];

/// What the compare panel asks the frame loop to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareAction {
    /// Measure the current settings and add a row.
    Measure,
    /// Measure every row again, together, in interleaved rounds.
    MeasureAll,
    /// Measure a working-set sweep of the current settings (a curve).
    WorkingSetSweep,
    /// Cancel the measurement in progress.
    Cancel,
    /// Remove row `i`.
    Remove(usize),
    /// Move row `i` one place up.
    MoveUp(usize),
    /// Make row `i` the baseline.
    Baseline(usize),
    /// Remove sweep curve `i`.
    RemoveCurve(usize),
    /// Remove working-set sweep curve `i`.
    RemoveWsCurve(usize),
    /// Remove every row and curve.
    Clear,
    /// Copy the rows as a Markdown table to the clipboard.
    CopyMarkdown,
    /// Save the rows as CSV in the current folder.
    SaveCsv,
    /// Save the rows as JSON in the current folder.
    SaveJson,
    /// Save the chart alone as a PNG in the current folder.
    SaveChart,
}

/// What the panel shows besides the rows.
#[derive(Clone, Copy, Debug)]
pub struct CompareState<'a> {
    /// The rows and curves.
    pub comparison: &'a Comparison,
    /// This machine (CPU, cores, caches).
    pub machine: &'a Machine,
    /// The measurement in progress: its label and progress (0 to 1).
    pub measuring: Option<(&'a str, f64)>,
}

/// The compare window, open while `open`; returns the actions clicked and
/// the chart's rectangle in points (for "save chart"), when drawn.
pub fn window(
    ctx: &egui::Context,
    open: &mut bool,
    st: CompareState<'_>,
    scale: &mut crate::teaching::chart::Scale,
) -> (Vec<CompareAction>, Option<egui::Rect>) {
    let mut acts = Vec::new();
    let mut chart = None;
    let screen = ctx.screen_rect();
    let width = 480.0f32.min(screen.width() - 20.0).max(220.0);
    let x = screen.right() - width - 20.0;
    // Never taller than the screen: the whole body scrolls, rows, chart
    // and buttons together (a projector at 1024x768 with a large UI scale).
    egui::Window::new("Compare")
        .open(open)
        .default_pos([x.max(10.0), 40.0])
        .default_width(width)
        .max_height(screen.height() - 60.0)
        .resizable(false)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("compare body")
                .show(ui, |ui| {
                    ui.set_max_width(width);
                    chart = body(ui, st, scale, &mut acts);
                });
        });
    (acts, chart)
}

/// The compare window's content; returns the chart's rectangle.
fn body(
    ui: &mut egui::Ui,
    st: CompareState<'_>,
    scale: &mut crate::teaching::chart::Scale,
    acts: &mut Vec<CompareAction>,
) -> Option<egui::Rect> {
    let mut chart = None;
    ui.label(egui::RichText::new(format!("This machine: {}", st.machine.summary())).weak())
        .on_hover_text("Read from the OS (/sys/devices/system/cpu/cpu0/cache on Linux; unknown elsewhere). Every number below was measured here, now: another machine gives other numbers, and often another order.");
    measure_row(ui, st, acts);
    if st.measuring.is_some() {
        ui.label(egui::RichText::new("The scene is paused so drawing does not compete.").weak());
    }
    let c = st.comparison;
    if c.is_empty() {
        ui.label("No rows yet. Press Enter (or the button) to measure the current settings; change a setting and measure again to compare. A finished cell-size sweep adds its curve and its fastest cell here too.");
        return None;
    }
    if c.rows().len() > 1 {
        ui.label(egui::RichText::new(format!("Every row: {}", c.common())).weak());
        if !c.all_interleaved() {
            ui.label(egui::RichText::new("Some rows were measured apart: \"Measure all\" measures them again together, for verdicts from interleaved rounds.").color(super::colors::NOTICE_COLOR));
        }
    }
    rows(ui, st, acts);
    if !c.rows().is_empty() {
        ui.horizontal(|ui| {
            use crate::teaching::chart::Scale;
            ui.label("chart axis")
                .on_hover_text("auto: log when the rows' times span more than 20x, else linear; the saved chart uses the same axis.");
            for (s, name) in [(Scale::Auto, "auto"), (Scale::Log, "log"), (Scale::Linear, "linear")] {
                ui.selectable_value(scale, s, name);
            }
        });
        chart = Some(bar_chart(ui, c, COMPARE_CHART, *scale));
    }
    if !c.curves().is_empty() {
        curves(ui, c, acts);
    }
    if !c.ws_curves().is_empty() {
        ws_curves(ui, c, acts);
    }
    ui.separator();
    export_row(ui, acts);
    chart
}

/// The measuring row: the progress and Cancel while a measurement runs,
/// else "Measure current settings" and "Measure all"; then "Clear".
fn measure_row(ui: &mut egui::Ui, st: CompareState<'_>, acts: &mut Vec<CompareAction>) {
    ui.horizontal_wrapped(|ui| {
        match st.measuring {
            Some((label, p)) => {
                ui.add(
                    egui::ProgressBar::new(p as f32)
                        .desired_width(260.0)
                        .text(format!("measuring {label}")),
                );
                if ui.button("Cancel").clicked() {
                    acts.push(CompareAction::Cancel);
                }
            }
            None => {
                if ui
                    .button("Measure current settings")
                    .on_hover_text(format!("Measure the current settings in {MEASURE_ROUNDS_DOC} rounds of {MEASURE_FRAMES_DOC} frames after {MEASURE_SETTLE_DOC} settling ones, each on a fresh simulation with the scene paused, and add a row (Enter)."))
                    .clicked()
                {
                    acts.push(CompareAction::Measure);
                }
                if ui
                    .add_enabled(st.comparison.rows().len() > 1, egui::Button::new("Measure all"))
                    .on_hover_text(format!("Measure every row again, together: {MEASURE_ROUNDS_DOC} rounds that visit the rows in turn, so they share the machine's drift and every verdict against the baseline compares interleaved rounds."))
                    .clicked()
                {
                    acts.push(CompareAction::MeasureAll);
                }
            }
        }
        if ui
            .add_enabled(!st.comparison.is_empty(), egui::Button::new("Clear"))
            .on_hover_text("Remove every row and sweep curve.")
            .clicked()
        {
            acts.push(CompareAction::Clear);
        }
    });
}

/// A row's cache model: lines and modeled misses per query, labeled
/// modeled, with the geometry on hover.
fn model_line(ui: &mut egui::Ui, m: &crate::measure::memory::modeled::Modeled) {
    let levels: Vec<String> = m
        .misses
        .iter()
        .zip(["L1d", "L2", "L3"])
        .map(|(x, n)| format!("{n} {x:.1}"))
        .collect();
    ui.add(
        egui::Label::new(format!(
            "modeled per query: {:.1} lines, misses {}",
            m.lines_touched,
            levels.join(", ")
        ))
        .wrap(),
    )
    .on_hover_text(format!(
        "The cache model ({} geometry), not hardware counters: {} queries of a fresh simulation of these settings after one frame; the same on every run.",
        m.geometry.key(),
        m.queries
    ));
}

/// The export buttons: Markdown to the clipboard, CSV, JSON and the chart.
fn export_row(ui: &mut egui::Ui, acts: &mut Vec<CompareAction>) {
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Copy Markdown")
            .on_hover_text("Copy the table (with this machine's name) to the clipboard, for slides and notes (F6 when no lesson is open).")
            .clicked()
        {
            acts.push(CompareAction::CopyMarkdown);
        }
        for (label, act, tip) in [
            ("Save CSV", CompareAction::SaveCsv, "Write spatial-query-lab-compare-NNN.csv in the current folder (in the browser: a download): one line per row with bench's keys, every phase's median and its rounds' range (only sweeps kept: one line per cell size). F7 when no lesson is open."),
            ("Save JSON", CompareAction::SaveJson, "Write spatial-query-lab-compare-NNN.json in the current folder (in the browser: a download): the rows with bench's keys and their rounds (each naming this machine) and the sweep curves. F8 when no lesson is open."),
            ("Save chart", CompareAction::SaveChart, if crate::platform::browser::IN_BROWSER {
                "Download the chart above as spatial-query-lab-chart.png, at the size it has on screen. F9 when no lesson is open."
            } else {
                "Write the chart as spatial-query-lab-chart-NNN.png (1920x1080) and .svg: a label and value on every bar, whiskers from the rounds, log scale when the rows span over 20x, the machine and date in the caption. F9 when no lesson is open."
            }),
        ] {
            if ui
                .button(label)
                .on_hover_text(tip)
                .clicked()
            {
                acts.push(act);
            }
        }
    });
}

/// Settling frames of a compare measurement, for the tooltip.
const MEASURE_SETTLE_DOC: usize = crate::measure::compare::MEASURE_SETTLE;
/// Rounds of a compare measurement, for the tooltip.
const MEASURE_ROUNDS_DOC: usize = crate::measure::compare::MEASURE_ROUNDS;
/// Counted frames of a compare measurement, for the tooltip.
const MEASURE_FRAMES_DOC: usize = crate::measure::compare::MEASURE_FRAMES;

/// One block per row: baseline choice, label and comparison and the row's
/// buttons on its first line; then step time with its range, working set,
/// and warnings, wrapped to the panel's width.
fn rows(ui: &mut egui::Ui, st: CompareState<'_>, acts: &mut Vec<CompareAction>) {
    let c = st.comparison;
    let base = c.baseline();
    {
        {
            for (i, m) in c.rows().iter().enumerate() {
                ui.horizontal(|ui| {
                    if ui
                        .radio(base == Some(i), "")
                        .on_hover_text("Baseline: the other rows are compared with this one, and the bars are drawn in units of its step time.")
                        .clicked()
                    {
                        acts.push(CompareAction::Baseline(i));
                    }
                    if ui
                        .add_enabled(i > 0, egui::Button::new("⏶").small())
                        .on_hover_text("Move this row up.")
                        .clicked()
                    {
                        acts.push(CompareAction::MoveUp(i));
                    }
                    if ui
                        .small_button("x")
                        .on_hover_text("Remove this row.")
                        .clicked()
                    {
                        acts.push(CompareAction::Remove(i));
                    }
                    ui.add(egui::Label::new(egui::RichText::new(c.describe(i)).strong()).wrap())
                        .on_hover_text(&m.label);
                });
                ui.indent(("compare row", i), |ui| {
                    let t = m.shown().total;
                    let range = if m.rounds.len() >= 2 { "rounds" } else { "frames" };
                    let mut how = format!(
                        "step {:.2} ms ({range} {:.2}-{:.2}; {} rounds of {} frames), query {:.2} ms, {:.1} tested per hit",
                        m.ms.total.median,
                        t.min,
                        t.max,
                        m.rounds.len(),
                        m.frames,
                        m.ms.query.median,
                        m.candidates_per_neighbor()
                    );
                    if m.sliced_frames > 0 {
                        how += &format!("; {} frame(s) spread over refreshes (sums of slices: estimates)", m.sliced_frames);
                    }
                    if m.worker_frames > 0 {
                        how += &format!("; {} frame(s) on the worker thread", m.worker_frames);
                    }
                    ui.add(egui::Label::new(how).wrap()).on_hover_text(format!(
                        "{} units, {} neighbors found (each pair from both sides), {} results written, {} threads. Working set: the bytes of unit storage and index the query phase reads ({} units, {} index).",
                        thousands(m.settings.units as u64),
                        thousands(m.neighbors),
                        crate::format::bytes(m.result_bytes as usize),
                        m.threads,
                        crate::format::bytes(m.working_set.unit_bytes as usize),
                        crate::format::bytes(m.working_set.index_bytes as usize),
                    ));
                    ui.add(egui::Label::new(format!("query reads {}", working_set_text(m, st.machine))).wrap());
                    if let Some(model) = &m.model {
                        model_line(ui, model);
                    }
                    if let Some(w) = spread_warning(m) {
                        ui.add(egui::Label::new(egui::RichText::new(w).color(super::colors::NOTICE_COLOR)).wrap());
                    }
                    if let Some(n) = m.cut_note().or_else(|| m.note.clone()) {
                        ui.add(egui::Label::new(egui::RichText::new(n).color(super::colors::NOTICE_COLOR)).wrap());
                    }
                });
            }
        }
    }
}

/// The rows' steps as bars stacked by phase, in units of the baseline's
/// step (the baseline's bar is about 1), as the plot `id`; returns the
/// rectangle of the plot and its caption. The lessons panel draws its
/// chart with it too.
pub(crate) fn bar_chart(
    ui: &mut egui::Ui,
    c: &Comparison,
    id: &str,
    scale: crate::teaching::chart::Scale,
) -> egui::Rect {
    let totals = c.rows().iter().map(|m| m.ms.total.median);
    if scale.is_log(totals) {
        // Rows 20x apart and more: on a linear scale the fast ones vanish.
        return log_chart(ui, c, id);
    }
    let n = c.rows().len();
    let mut charts: Vec<BarChart> = Vec::with_capacity(4);
    for (k, (name, color)) in PHASE_NAMES.iter().zip(PHASE_COLORS).enumerate() {
        let bars: Vec<Bar> = (0..n)
            .filter_map(|i| {
                let v = c.normalized(i)?[k];
                Some(
                    Bar::new(i as f64, v)
                        .width(0.6)
                        .name(format!("{}: {name}", c.name(i))),
                )
            })
            .collect();
        let others: Vec<&BarChart> = charts.iter().collect();
        let chart = BarChart::new(bars)
            .color(color)
            .name(*name)
            .stack_on(&others);
        charts.push(chart);
    }
    let labels: Vec<String> = (0..n)
        .map(|i| {
            if Some(i) == c.baseline() {
                format!("{}\n(baseline)", c.name(i))
            } else {
                c.name(i)
            }
        })
        .collect();
    let base = c.baseline().map_or(String::new(), |b| c.name(b));
    // The caption, axes and labels belong to the saved chart: its rectangle
    // is the whole group's.
    ui.scope(|ui| {
        ui.label(format!(
            "Step time per row, stacked by phase, in units of the baseline's ({base})"
        ));
        super::plot::bars(id, 220.0, labels)
            .legend(Legend::default())
            .y_axis_label("x baseline step")
            .show(ui, |p| {
                for ch in charts {
                    p.bar_chart(ch);
                }
            });
    })
    .response
    .rect
}

/// Every kept sweep's median query ms against cell / r (log scale), one
/// color each, with a remove button per curve.
fn curves(ui: &mut egui::Ui, c: &Comparison, acts: &mut Vec<CompareAction>) {
    ui.label("Cell-size sweeps: median query ms against cell / r");
    let labels = c.curves().iter().map(|k| k.label.as_str());
    curve_list(ui, labels, CompareAction::RemoveCurve, acts);
    curves_plot(ui, c, "compare sweeps");
}

/// One line per curve: its label in its color and a remove button that
/// asks for `remove(i)`.
fn curve_list<'a>(
    ui: &mut egui::Ui,
    labels: impl Iterator<Item = &'a str>,
    remove: fn(usize) -> CompareAction,
    acts: &mut Vec<CompareAction>,
) {
    for (i, label) in labels.enumerate() {
        ui.horizontal(|ui| {
            ui.colored_label(CURVE_COLORS[i % CURVE_COLORS.len()], format!("— {label}"));
            if ui
                .small_button("x")
                .on_hover_text("Remove this curve.")
                .clicked()
            {
                acts.push(remove(i));
            }
        });
    }
}

/// Every kept working-set sweep's median query ns per unit against its
/// working set (log scale), one color each, with a remove button per curve.
fn ws_curves(ui: &mut egui::Ui, c: &Comparison, acts: &mut Vec<CompareAction>) {
    ui.label("Working-set sweeps: query ns per unit against the working set")
        .on_hover_text("Each point: one unit count, its query's median ns per unit over the rounds. The red lines are this machine's cache sizes: where a curve leaves its first cost, compare that working set with the cache sizes on either side of it.");
    let labels = c.ws_curves().iter().map(|k| k.label.as_str());
    curve_list(ui, labels, CompareAction::RemoveWsCurve, acts);
    ws_curves_plot(ui, c, Machine::current(), "compare working-set sweeps");
}

/// Every working-set sweep of `c` as one colored curve of median query ns
/// per unit against the working set (log2 of bytes on the axis, labeled as
/// sizes), a red vertical line at each of `machine`'s cache sizes, as the
/// plot `id`; returns its rectangle.
pub(crate) fn ws_curves_plot(
    ui: &mut egui::Ui,
    c: &Comparison,
    machine: &Machine,
    id: &str,
) -> egui::Rect {
    let size = |x: f64| crate::format::size(x.exp2().max(0.0) as u64);
    super::plot::fixed(id, 200.0)
        .include_y(0.0)
        // Top left: the curves are low there until the working set outgrows L2.
        .legend(Legend::default().position(egui_plot::Corner::LeftTop))
        .x_axis_label("working set (log scale)")
        .y_axis_label("ns per unit")
        // A mark at every power of two, labeled at every power of four.
        .x_grid_spacer(|input: egui_plot::GridInput| {
            let (lo, hi) = input.bounds;
            (lo.ceil() as i64..=hi.floor() as i64)
                .map(|k| egui_plot::GridMark {
                    value: k as f64,
                    step_size: if k % 2 == 0 { 2.0 } else { 1.0 },
                })
                .collect()
        })
        .x_axis_formatter(move |m, _| {
            if (m.value.round() as i64) % 2 == 0 {
                size(m.value)
            } else {
                String::new()
            }
        })
        .label_formatter(move |_, v| format!("{}\n{:.1} ns per unit", size(v.x), v.y))
        .show(ui, |p| {
            for (name, bytes) in machine.levels() {
                p.vline(
                    egui_plot::VLine::new((bytes as f64).log2())
                        .color(egui::Color32::from_rgb(220, 70, 70))
                        .name(format!("{name} {}", crate::format::size(bytes))),
                );
            }
            for (i, curve) in c.ws_curves().iter().enumerate() {
                let pts = curve
                    .points
                    .iter()
                    .map(|p| [(p.working_set_bytes.max(1) as f64).log2(), p.ns_per_unit])
                    .collect();
                plot_curve(p, i, &curve.label, pts);
            }
        })
        .response
        .rect
}

/// Every kept sweep of `c` as one colored curve of median query ms
/// against cell / r (log scale), as the plot `id`; returns its rectangle.
pub(crate) fn curves_plot(ui: &mut egui::Ui, c: &Comparison, id: &str) -> egui::Rect {
    super::plot::fixed(id, 150.0)
        .include_y(0.0)
        .x_axis_label("cell / r (log scale)")
        .y_axis_label("query ms")
        .x_axis_formatter(|m, _| format!("{:.2}", m.value.exp2()))
        .label_formatter(|_, v| format!("cell {:.2} r\n{:.3} ms", v.x.exp2(), v.y))
        .show(ui, |p| {
            for (i, curve) in c.curves().iter().enumerate() {
                let pts = curve
                    .points
                    .iter()
                    .map(|p| [(p.cell_over_r as f64).log2(), p.query_ms])
                    .collect();
                plot_curve(p, i, &curve.label, pts);
            }
        })
        .response
        .rect
}

/// Curve `i` of a plot: a line through `pts` in the `i`-th curve color,
/// named `label`, with a dot at every point.
fn plot_curve(p: &mut egui_plot::PlotUi, i: usize, label: &str, pts: Vec<[f64; 2]>) {
    let color = CURVE_COLORS[i % CURVE_COLORS.len()];
    p.line(
        Line::new(PlotPoints::from(pts.clone()))
            .color(color)
            .name(label),
    );
    p.points(
        Points::new(PlotPoints::from(pts))
            .color(color)
            .radius(3.0)
            .filled(true),
    );
}

/// Where the log chart's bars start: the power of ten at or below half the
/// smallest value, so the shortest bar is at least log10(2) decades tall,
/// even for a value just above a power of ten (1.09 gives 0.1, a bar of 1.04
/// decades); 1 when no value is positive and finite.
fn bar_floor(smallest: f64) -> f64 {
    if smallest.is_finite() && smallest > 0.0 {
        10f64.powf((smallest / 2.0).log10().floor())
    } else {
        1.0
    }
}

/// Each row's median step and query time as bars on a log scale (the rows
/// of a lesson differ by up to 1,000x: on a linear scale the fast ones
/// vanish), as the plot `id`; returns the rectangle of the plot and its
/// caption. The lessons panel draws its chart with it too.
pub(crate) fn log_chart(ui: &mut egui::Ui, c: &Comparison, id: &str) -> egui::Rect {
    use egui_plot::{Bar, BarChart, Legend};
    let rows = c.rows();
    let n = rows.len();
    let smallest = rows
        .iter()
        .flat_map(|m| [m.ms.total.median, m.ms.query.median])
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let floor = bar_floor(smallest);
    let height = |ms: f64| (ms.max(floor) / floor).log10();
    let series = |name: &str, offset: f64, pick: fn(&crate::measure::Measurement) -> f64| {
        let bars: Vec<Bar> = rows
            .iter()
            .enumerate()
            .map(|(i, m)| {
                Bar::new(i as f64 + offset, height(pick(m)))
                    .width(0.35)
                    .name(format!("{}: {name} {:.3} ms", c.name(i), pick(m)))
            })
            .collect();
        BarChart::new(bars).name(name)
    };
    let labels: Vec<String> = (0..n).map(|i| c.name(i)).collect();
    ui.scope(|ui| {
        ui.label("Median step and query time per row (log scale), measured here");
        super::plot::bars(id, 200.0, labels)
            .legend(Legend::default())
            .y_axis_label("ms (log)")
            .y_axis_formatter(move |m, _| {
                let v = floor * 10f64.powf(m.value);
                // Two significant digits at every mark egui places.
                let digits = (1 - v.log10().floor() as i32).max(0) as usize;
                format!("{v:.digits$}")
            })
            .show(ui, |pl| {
                pl.bar_chart(
                    series("step", -0.18, |m| m.ms.total.median)
                        .color(egui::Color32::from_rgb(90, 150, 255)),
                );
                pl.bar_chart(series("query", 0.18, |m| m.ms.query.median).color(PHASE_COLORS[2]));
            });
    })
    .response
    .rect
}

#[cfg(test)]
mod tests {
    use super::bar_floor;

    /// The shortest bar stands at least log10(2) decades above where the bars
    /// start, and at most one decade more, values just above a power of ten
    /// (1.0, 1.09, 10.0) included.
    #[test]
    fn the_shortest_bar_is_at_least_a_third_of_a_decade_tall() {
        for smallest in [
            0.0123, 0.19, 1.0, 1.09, 1.9, 2.0, 3.0, 9.99, 10.0, 57.0, 1234.0,
        ] {
            let floor = bar_floor(smallest);
            let decades = (smallest / floor).log10();
            assert!(
                (2f64.log10() - 1e-9..=1.0 + 2f64.log10() + 1e-9).contains(&decades),
                "{smallest}: bars from {floor}, the shortest {decades} decades"
            );
            let exponent = floor.log10();
            assert!(
                (exponent - exponent.round()).abs() < 1e-9,
                "{smallest}: {floor} is a power of ten"
            );
        }
        assert_eq!(bar_floor(1.09), 0.1);
        assert_eq!(bar_floor(f64::INFINITY), 1.0, "no value");
        assert_eq!(bar_floor(0.0), 1.0, "no positive value");
    }
}
