//! The compare panel: its rows and curves, measuring the current settings
//! into a row, or every row again together, quietly ([`super::quiet`]);
//! the working-set sweep's curve; keeping finished cell-size sweeps; the
//! exports (clipboard, CSV, JSON, the chart as PNG and SVG).
//!
//! [`ComparePanel`] owns the panel's state; its methods read a
//! [`CompareContext`] and write what they ask of the window to
//! [`Requests`].

use super::quiet::Purpose;
use super::requests::{ChartRequest, Request, Requests};
use super::App;
use crate::engine::sim::Settings;
use crate::measure::compare::Comparison;
use crate::measure::compare::{measure_all_plan, measure_plan, row_label, MEASURE_ROUNDS};
use crate::measure::machine::Machine;
use crate::measure::model_task::ModelTask;
use crate::measure::run::Task;
use crate::measure::{Measurement, Outcome};
use crate::settings::view::Geometry;
use crate::teaching::chart::Scale;
use crate::window::ui::compare::CompareAction;
use crate::window::ui::ViewOptions;

/// The working-set sweep being measured: what its curve is called and the
/// note on its span of unit counts.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct WsPending {
    /// The curve's label (strategy, layout, order).
    pub label: String,
    /// Why the span of unit counts is what it is, when it is cut short.
    pub note: Option<String>,
}

/// The compare panel's state in the frame loop.
#[derive(Default)]
pub(super) struct ComparePanel {
    /// The panel's rows and curves.
    pub rows: Comparison,
    /// Where the compare chart was drawn in the last overlay pass, points.
    pub chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The working-set sweep being measured, if one is.
    ws_pending: Option<WsPending>,
}

/// What the compare panel reads of the window.
pub(super) struct CompareContext<'a> {
    /// The settings running now (what "Measure" measures).
    pub settings: &'a Settings,
    /// The cache model the rows' modeled counts use.
    pub cache_model: Geometry,
    /// The compare chart's value axis.
    pub chart_scale: Scale,
    /// Why a quiet measurement cannot start now, if it cannot
    /// ([`App::quiet_refusal`]).
    pub refusal: Option<&'static str>,
}

impl ComparePanel {
    /// Carries out one of the panel's requests.
    pub fn action(&mut self, a: CompareAction, cx: &CompareContext, out: &mut Requests) {
        let c = &mut self.rows;
        match a {
            CompareAction::Measure => self.start_measuring(cx, out),
            CompareAction::WorkingSetSweep => self.start_ws_sweep(cx, out),
            CompareAction::MeasureAll => self.measure_all(cx, out),
            CompareAction::Cancel => out.push(Request::CancelQuiet),
            CompareAction::Remove(i) => c.remove(i),
            CompareAction::MoveUp(i) => c.move_up(i),
            CompareAction::Baseline(i) => c.set_baseline(i),
            CompareAction::RemoveCurve(i) => c.remove_curve(i),
            CompareAction::RemoveWsCurve(i) => c.remove_ws_curve(i),
            CompareAction::Clear => c.clear(),
            CompareAction::CopyMarkdown => {
                let n = c.rows().len();
                out.push(Request::Copy {
                    text: c.to_markdown(Machine::current()),
                    what: format!("a Markdown table of {n} row(s)"),
                    tail: String::new(),
                });
            }
            CompareAction::SaveCsv => {
                let text = if c.rows().is_empty() && c.curves().is_empty() {
                    c.ws_csv()
                } else if c.rows().is_empty() {
                    c.curves_csv()
                } else {
                    c.to_csv()
                };
                out.push(Request::SaveText {
                    stem: "spatial-query-lab-compare",
                    ext: "csv",
                    text: Ok(text),
                });
            }
            CompareAction::SaveJson => out.push(Request::SaveText {
                stem: "spatial-query-lab-compare",
                ext: "json",
                text: c.to_json(),
            }),
            CompareAction::SaveChart => {
                let m = Machine::current();
                let chart = if c.rows().is_empty() && c.curves().is_empty() {
                    crate::teaching::chart::working_set_curves(
                        c.ws_curves(),
                        m,
                        "Working-set sweeps",
                    )
                } else if c.rows().is_empty() {
                    crate::teaching::chart::sweep_curves(c.curves(), m, "Cell-size sweeps")
                } else {
                    crate::teaching::chart::comparison_bars(c, m, "Compare", cx.chart_scale)
                };
                out.push(Request::SaveChart(Box::new(ChartRequest {
                    chart,
                    rect: self.chart_rect,
                    which: "compare",
                })));
            }
        }
    }

    /// Measures the current settings quietly for a row (and opens the panel).
    pub fn start_measuring(&mut self, cx: &CompareContext, out: &mut Requests) {
        out.push(Request::ShowCompare);
        let tasks = vec![
            Task::Plan(measure_plan(cx.settings)),
            Task::Model(ModelTask::new(vec![cx.settings.clone()], cx.cache_model)),
        ];
        out.push(Request::Measure {
            tasks,
            purpose: Purpose::CompareOne,
        });
    }

    /// Starts the working-set sweep of the current settings (the panel
    /// opens to show its curve): unit counts from this machine's caches for
    /// the current work's bytes per unit, measured quietly. Naive is
    /// refused with a toast (its cost grows with the square of the units),
    /// as is a sweep while another measurement runs.
    fn start_ws_sweep(&mut self, cx: &CompareContext, out: &mut Requests) {
        use crate::measure::working_set_sweep as ws;
        let s = cx.settings;
        if s.strategy == crate::engine::spatial::Strategy::Naive {
            out.toast("The working-set sweep measures a grid: Naive's cost grows with the square of the units. Choose Grid or SortedGrid.");
            return;
        }
        let span = ws::unit_counts(ws::bytes_per_unit(s), Machine::current(), None);
        let label = format!(
            "{} / {} / order {}",
            s.strategy.name(),
            s.layout.name(),
            s.reorder.name()
        );
        let plan = ws::plan(&label, s, &span);
        if let Some(why) = cx.refusal {
            out.toast(why);
            return;
        }
        out.push(Request::Measure {
            tasks: vec![Task::Plan(plan)],
            purpose: Purpose::WorkingSet,
        });
        out.push(Request::ShowCompare);
        self.ws_pending = Some(WsPending {
            label,
            note: span.note,
        });
    }

    /// Measures every row's settings again, together, in interleaved rounds.
    fn measure_all(&mut self, cx: &CompareContext, out: &mut Requests) {
        let settings: Vec<_> = self
            .rows
            .rows()
            .iter()
            .map(|m| m.settings.clone())
            .collect();
        if settings.is_empty() {
            return;
        }
        let model = ModelTask::new(settings.clone(), cx.cache_model);
        out.push(Request::Measure {
            tasks: vec![Task::Plan(measure_all_plan(&settings)), Task::Model(model)],
            purpose: Purpose::CompareAll,
        });
    }

    /// Takes back a working-set sweep's measured `tasks` (`stopped`: why it
    /// ended early, if it did): its curve in the panel, and a toast saying
    /// where it rose.
    pub fn finish_ws_sweep(&mut self, tasks: &[Task], stopped: Option<String>, out: &mut Requests) {
        use crate::measure::working_set_sweep::{Rise, WsCurve};
        let pending = self.ws_pending.take();
        if let Some(why) = stopped {
            out.toast(format!("Working-set sweep {why}; no curve kept."));
            return;
        }
        let (Some(Task::Plan(plan)), Some(WsPending { label, note })) = (tasks.first(), pending)
        else {
            return;
        };
        let curve = WsCurve::of(&label, plan.outcomes(), note);
        let message = match (curve.first(), curve.last(), curve.rise()) {
            (Some(a), Some(b), rise) => {
                let size = crate::format::size;
                let rose = match rise {
                    Rise::At(p) => format!("; it rose at {}", size(p.working_set_bytes)),
                    Rise::Flat => "; no rise beyond the noise".to_string(),
                    Rise::TooFewRounds => String::new(),
                };
                format!(
                    "Working-set sweep of {label}: {:.0} ns per unit at {} to {:.0} ns at {}{rose}.",
                    a.ns_per_unit,
                    size(a.working_set_bytes),
                    b.ns_per_unit,
                    size(b.working_set_bytes)
                )
            }
            _ => "The working-set sweep measured no unit count.".to_string(),
        };
        if !curve.points.is_empty() {
            self.rows.add_ws_curve(curve);
        }
        out.toast(message);
    }

    /// Takes back a compare measurement's `tasks` for `purpose` (`stopped`:
    /// why it ended early, if it did): a new row, or every row replaced
    /// (with the rows skipped kept as they were, and said so).
    pub fn finish_measure(
        &mut self,
        tasks: &[Task],
        purpose: Purpose,
        stopped: Option<String>,
        out: &mut Requests,
    ) {
        if let Some(why) = stopped {
            out.toast(format!("Measurement {why}; no row changed."));
            return;
        }
        let Some(Task::Plan(plan)) = tasks.first() else {
            return;
        };
        // The cache model of each variant, where it was made.
        let model = |i: usize| match tasks.get(1) {
            Some(Task::Model(t)) => t.result(i).cloned(),
            _ => None,
        };
        let mut measured = Vec::new();
        let mut skipped = Vec::new();
        for (i, _) in plan.variants().iter().enumerate() {
            match plan.outcome_of(i) {
                Some(Outcome::Measured(m)) => {
                    let mut m = m.clone();
                    m.label = row_label(&m.settings, m.threads);
                    m.model = model(i);
                    measured.push(m);
                }
                Some(Outcome::Skipped(s)) => skipped.push(s.why.clone()),
                None => {}
            }
        }
        let message = match (purpose, skipped.first()) {
            (_, Some(why)) => format!("Not measured: {why}"),
            (Purpose::CompareAll, None) => format!(
                "Measured every row again in {MEASURE_ROUNDS} interleaved rounds: the verdicts compare rounds that shared the machine."
            ),
            _ => match measured.first() {
                Some(m) => format!(
                    "Measured {}: step {:.2} ms ({} rounds, {:.2}-{:.2}).",
                    m.label, m.ms.total.median, m.rounds.len(), m.ms.total.min, m.ms.total.max
                ),
                None => "Nothing measured.".to_string(),
            },
        };
        match purpose {
            Purpose::CompareAll if skipped.is_empty() => self.rows.replace_all(measured),
            Purpose::CompareAll => {}
            _ => {
                for m in measured {
                    self.rows.add(m);
                }
            }
        }
        out.toast(message);
    }

    /// The newest row of exactly the work of `s`
    /// ([`Settings::same_work`]), for the headline.
    pub fn measured(&self, s: &Settings) -> Option<&Measurement> {
        self.rows
            .rows()
            .iter()
            .rev()
            .find(|m| m.settings.same_work(s))
    }
}

impl<'a> CompareContext<'a> {
    /// The panel's context: the `settings` running, what it reads of the
    /// `view`, and why a quiet measurement cannot start now (`refusal`).
    fn of(settings: &'a Settings, view: &ViewOptions, refusal: Option<&'static str>) -> Self {
        CompareContext {
            settings,
            cache_model: view.settings.cache_model,
            chart_scale: view.chart_scale,
            refusal,
        }
    }
}

impl App {
    /// Carries out one of the compare panel's requests, then shows its
    /// rows and the headline.
    pub(super) fn compare_action(&mut self, a: CompareAction) {
        let mut out = Requests::default();
        let cx = CompareContext::of(&self.settings, &self.view, self.quiet_refusal());
        self.compare.action(a, &cx, &mut out);
        self.carry_out(out);
        self.stats.comparison.clone_from(&self.compare.rows);
        self.refresh_headline();
    }

    /// Measures the current settings quietly for a compare row (Enter).
    pub(super) fn start_measuring(&mut self) {
        let mut out = Requests::default();
        let cx = CompareContext::of(&self.settings, &self.view, self.quiet_refusal());
        self.compare.start_measuring(&cx, &mut out);
        self.carry_out(out);
    }

    /// Takes back a working-set sweep ([`ComparePanel::finish_ws_sweep`]).
    pub(super) fn finish_ws_sweep(&mut self, tasks: &[Task], stopped: Option<String>) {
        let mut out = Requests::default();
        self.compare.finish_ws_sweep(tasks, stopped, &mut out);
        self.carry_out(out);
        self.stats.comparison.clone_from(&self.compare.rows);
    }

    /// Takes back a compare measurement ([`ComparePanel::finish_measure`]).
    pub(super) fn finish_compare_measure(
        &mut self,
        tasks: &[Task],
        purpose: Purpose,
        stopped: Option<String>,
    ) {
        let mut out = Requests::default();
        self.compare
            .finish_measure(tasks, purpose, stopped, &mut out);
        self.carry_out(out);
        self.stats.comparison.clone_from(&self.compare.rows);
    }

    /// Keeps a cell-size sweep that just finished as a curve and a row.
    pub(super) fn keep_sweep(&mut self) {
        if let Some(sw) = self.sweep.keep() {
            self.compare.rows.add_sweep(sw);
            self.stats.comparison.clone_from(&self.compare.rows);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::spatial::Strategy;

    fn cx<'a>(settings: &'a Settings, refusal: Option<&'static str>) -> CompareContext<'a> {
        CompareContext::of(settings, &ViewOptions::default(), refusal)
    }

    #[test]
    fn measuring_opens_the_panel_and_asks_for_one_quiet_measurement() {
        let s = Settings::default();
        let mut panel = ComparePanel::default();
        let mut out = Requests::default();
        panel.action(CompareAction::Measure, &cx(&s, None), &mut out);
        assert!(matches!(
            out.as_slice(),
            [
                Request::ShowCompare,
                Request::Measure {
                    purpose: Purpose::CompareOne,
                    ..
                }
            ]
        ));
        // Nothing to measure again without rows; cancelling is the window's.
        let mut out = Requests::default();
        panel.action(CompareAction::MeasureAll, &cx(&s, None), &mut out);
        panel.action(CompareAction::Cancel, &cx(&s, None), &mut out);
        assert!(matches!(out.as_slice(), [Request::CancelQuiet]));
    }

    #[test]
    fn a_working_set_sweep_waits_for_its_curve_only_when_it_starts() {
        let grid = Settings {
            strategy: Strategy::Grid,
            ..Settings::default()
        };
        let mut panel = ComparePanel::default();
        let mut out = Requests::default();
        panel.action(
            CompareAction::WorkingSetSweep,
            &cx(&grid, Some("busy")),
            &mut out,
        );
        assert!(matches!(out.as_slice(), [Request::Toast(t)] if t == "busy"));
        assert_eq!(panel.ws_pending, None);
        let naive = Settings {
            strategy: Strategy::Naive,
            ..Settings::default()
        };
        let mut out = Requests::default();
        panel.action(CompareAction::WorkingSetSweep, &cx(&naive, None), &mut out);
        assert!(matches!(out.as_slice(), [Request::Toast(t)] if t.contains("Naive")));
        assert_eq!(panel.ws_pending, None);
        let mut out = Requests::default();
        panel.action(CompareAction::WorkingSetSweep, &cx(&grid, None), &mut out);
        assert!(matches!(
            out.as_slice(),
            [
                Request::Measure {
                    purpose: Purpose::WorkingSet,
                    ..
                },
                Request::ShowCompare
            ]
        ));
        assert!(panel
            .ws_pending
            .as_ref()
            .is_some_and(|p| p.label.starts_with("Grid")));
        // A stopped sweep keeps no curve and forgets what it waited for.
        let mut out = Requests::default();
        panel.finish_ws_sweep(&[], Some("cancelled".into()), &mut out);
        assert!(matches!(out.as_slice(), [Request::Toast(t)] if t.contains("no curve kept")));
        assert_eq!(panel.ws_pending, None);
    }
}
