//! The compare panel's side of the frame loop: measuring the current
//! settings into a row, or every row again together, quietly
//! ([`super::quiet`]); keeping finished sweeps; the exports (clipboard,
//! CSV, JSON, the chart as PNG and SVG).

use macroquad::prelude::get_time;

use super::quiet::Purpose;
use super::{files, App, STATUS_S};
use crate::measure::compare::Comparison;
use crate::measure::compare::{measure_all_plan, measure_plan, row_label, MEASURE_ROUNDS};
use crate::measure::machine::Machine;
use crate::measure::model_task::ModelTask;
use crate::measure::run::Task;
use crate::measure::Outcome;
use crate::window::ui::compare::CompareAction;

/// The compare panel's state in the frame loop.
#[derive(Default)]
pub(super) struct ComparePanel {
    /// The panel's rows and curves.
    pub rows: Comparison,
    /// Where the compare chart was drawn in the last overlay pass, points.
    pub chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The working-set sweep being measured: its curve's label and its
    /// span's note.
    pub ws_pending: Option<(String, Option<String>)>,
}

impl App {
    /// Shows `message` at the bottom of the window for a few seconds.
    pub(super) fn toast(&mut self, message: String) {
        self.stats.status = Some((message, get_time() + STATUS_S));
    }

    /// Carries out one of the compare panel's requests.
    pub(super) fn compare_action(&mut self, a: CompareAction) {
        {
            let c = &mut self.compare.rows;
            match a {
                CompareAction::Measure => self.start_measuring(),
                CompareAction::WorkingSetSweep => self.start_ws_sweep(),
                CompareAction::MeasureAll => self.measure_all(),
                CompareAction::Cancel => self.cancel_quiet(),
                CompareAction::Remove(i) => c.remove(i),
                CompareAction::MoveUp(i) => c.move_up(i),
                CompareAction::Baseline(i) => c.set_baseline(i),
                CompareAction::RemoveCurve(i) => c.remove_curve(i),
                CompareAction::RemoveWsCurve(i) => c.remove_ws_curve(i),
                CompareAction::Clear => c.clear(),
                CompareAction::CopyMarkdown => {
                    let md = c.to_markdown(Machine::current());
                    let n = c.rows().len();
                    let said = self.copy_text(md, &format!("a Markdown table of {n} row(s)"));
                    self.toast(said);
                }
                CompareAction::SaveCsv => {
                    let text = if c.rows().is_empty() && c.curves().is_empty() {
                        c.ws_csv()
                    } else if c.rows().is_empty() {
                        c.curves_csv()
                    } else {
                        c.to_csv()
                    };
                    self.save_text("spatial-query-lab-compare", "csv", Ok(text));
                }
                CompareAction::SaveJson => {
                    let text = c.to_json();
                    self.save_text("spatial-query-lab-compare", "json", text);
                }
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
                        crate::teaching::chart::comparison_bars(
                            c,
                            m,
                            "Compare",
                            self.view.chart_scale,
                        )
                    };
                    self.save_chart(&chart, self.compare.chart_rect, "compare");
                }
            }
        }
        self.stats.comparison.clone_from(&self.compare.rows);
        self.refresh_headline();
    }

    /// Carries out the export key `e` ([`super::keys::Export`]) for the lesson
    /// panel when a lesson is open and shown, else for the compare panel.
    pub(super) fn export(&mut self, e: super::keys::Export) {
        use super::keys::Export;
        use crate::window::ui::lesson::LessonAction;
        if self.view.show_lessons && self.lessons.session.is_some() {
            let act = match e {
                Export::Markdown => LessonAction::CopyMarkdown,
                Export::Csv => LessonAction::SaveCsv,
                Export::Json => LessonAction::SaveJson,
                Export::Chart => LessonAction::SaveChart,
            };
            self.lesson_action(act);
        } else {
            let act = match e {
                Export::Markdown => CompareAction::CopyMarkdown,
                Export::Csv => CompareAction::SaveCsv,
                Export::Json => CompareAction::SaveJson,
                Export::Chart => CompareAction::SaveChart,
            };
            self.compare_action(act);
        }
    }

    /// Puts `text` on the clipboard: egui's (the window system's), and in
    /// the browser also the page's (`navigator.clipboard`), since egui's
    /// there reaches the clipboard only on the next Ctrl+C. Returns the
    /// toast's words.
    pub(super) fn copy_text(&mut self, text: String, what: &str) -> String {
        let page = crate::platform::browser::copy_text(&text);
        // In the browser too: where the page's clipboard is refused, the
        // next Ctrl+C hands egui's to the browser.
        self.egui.ctx().copy_text(text);
        if page {
            format!("Copied {what} to the clipboard (the page says so if the browser refuses).")
        } else {
            format!("Copied {what} to the clipboard.")
        }
    }

    /// Saves `text` (or says why there is none) as the next free
    /// `{stem}-NNN.{ext}` in the current folder, or as a browser download
    /// ([`files::deliver`]), and says where in a toast.
    pub(super) fn save_text(&mut self, stem: &str, ext: &str, text: Result<String, String>) {
        let message = match text.and_then(|t| files::deliver(stem, ext, t.as_bytes())) {
            Ok(to) => format!("Saved {to}"),
            Err(e) => format!("Not saved: {e}"),
        };
        self.toast(message);
    }

    /// Saves `chart` as the next free `spatial-query-lab-chart-NNN.png`
    /// (1920x1080) and the `.svg` beside it, the same files `lesson
    /// --chart` writes. The browser build has no chart renderer: there the
    /// panel's own plot (`rect`, in points) is saved as a PNG download.
    pub(super) fn save_chart(
        &mut self,
        chart: &crate::teaching::chart::Chart,
        rect: Option<egui_macroquad::egui::Rect>,
        which: &'static str,
    ) {
        #[cfg(not(target_arch = "wasm32"))]
        let message = {
            let _ = (rect, which);
            let saved = crate::teaching::chart::draw::png(chart, crate::teaching::chart::PNG_SIZE)
                .and_then(|png| {
                    let to = files::deliver("spatial-query-lab-chart", "png", &png)?;
                    let svg =
                        crate::teaching::chart::draw::svg(chart, crate::teaching::chart::PNG_SIZE)?;
                    let svg_to = files::deliver("spatial-query-lab-chart", "svg", svg.as_bytes())?;
                    Ok(format!("{to} and {svg_to}"))
                });
            match saved {
                Ok(to) => format!("Chart saved: {to}"),
                Err(e) => format!("Chart not saved: {e}"),
            }
        };
        #[cfg(target_arch = "wasm32")]
        {
            let _ = chart;
            match rect {
                None => self.toast(format!("Not saved: the {which} chart is not on screen.")),
                Some(rect) => {
                    let scale = self.egui.ctx().pixels_per_point();
                    let px = [rect.min.x, rect.min.y, rect.width(), rect.height()]
                        .map(|v| (v * scale).round().max(0.0) as u32);
                    // Saved once this frame is drawn ([`App::finish`]).
                    self.exports
                        .request(super::exports::Export::Region(px, which));
                }
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        self.toast(message);
    }

    /// Measures the current settings quietly for a compare row (and opens
    /// the panel).
    pub(super) fn start_measuring(&mut self) {
        self.view.show_compare = true;
        let tasks = vec![
            Task::Plan(measure_plan(&self.settings)),
            Task::Model(ModelTask::new(
                vec![self.settings.clone()],
                self.view.settings.cache_model,
            )),
        ];
        self.start_quiet(tasks, Purpose::CompareOne);
    }

    /// Starts the working-set sweep of the current settings (the compare
    /// panel opens to show its curve): unit counts from this machine's
    /// caches for the current work's bytes per unit, measured quietly.
    /// Naive is refused with a toast (its cost grows with the square of
    /// the units).
    fn start_ws_sweep(&mut self) {
        use crate::measure::working_set_sweep as ws;
        let s = self.settings.clone();
        if s.strategy == crate::engine::spatial::Strategy::Naive {
            self.toast("The working-set sweep measures a grid: Naive's cost grows with the square of the units. Choose Grid or SortedGrid.".to_string());
            return;
        }
        let span = ws::unit_counts(ws::bytes_per_unit(&s), Machine::current(), None);
        let label = format!(
            "{} / {} / order {}",
            s.strategy.name(),
            s.layout.name(),
            s.reorder.name()
        );
        let plan = ws::plan(&label, &s, &span);
        if self.start_quiet(vec![Task::Plan(plan)], Purpose::WorkingSet) {
            self.view.show_compare = true;
            self.compare.ws_pending = Some((label, span.note));
        }
    }

    /// Takes back a working-set sweep: its curve in the compare panel, and
    /// a toast saying where it rose.
    pub(super) fn finish_ws_sweep(&mut self, tasks: &[Task], stopped: Option<String>) {
        use crate::measure::working_set_sweep::{Rise, WsCurve};
        let pending = self.compare.ws_pending.take();
        if let Some(why) = stopped {
            self.toast(format!("Working-set sweep {why}; no curve kept."));
            return;
        }
        let (Some(Task::Plan(plan)), Some((label, note))) = (tasks.first(), pending) else {
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
            self.compare.rows.add_ws_curve(curve);
        }
        self.toast(message);
        self.stats.comparison.clone_from(&self.compare.rows);
    }

    /// Measures every row's settings again, together, in interleaved rounds.
    fn measure_all(&mut self) {
        let settings: Vec<_> = self
            .compare
            .rows
            .rows()
            .iter()
            .map(|m| m.settings.clone())
            .collect();
        if settings.is_empty() {
            return;
        }
        let model = ModelTask::new(settings.clone(), self.view.settings.cache_model);
        self.start_quiet(
            vec![Task::Plan(measure_all_plan(&settings)), Task::Model(model)],
            Purpose::CompareAll,
        );
    }

    /// Takes back a compare measurement: a new row, or every row replaced
    /// (with the rows skipped kept as they were, and said so).
    pub(super) fn finish_compare_measure(
        &mut self,
        tasks: &[Task],
        purpose: Purpose,
        stopped: Option<String>,
    ) {
        if let Some(why) = stopped {
            self.toast(format!("Measurement {why}; no row changed."));
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
            Purpose::CompareAll if skipped.is_empty() => self.compare.rows.replace_all(measured),
            Purpose::CompareAll => {}
            _ => {
                for m in measured {
                    self.compare.rows.add(m);
                }
            }
        }
        self.toast(message);
        self.stats.comparison.clone_from(&self.compare.rows);
    }

    /// Keeps a sweep that just finished as a curve and a row.
    pub(super) fn keep_sweep(&mut self) {
        let finished = self
            .sweep
            .run
            .as_ref()
            .filter(|sw| sw.is_done() && !self.sweep.kept);
        if let Some(sw) = finished {
            self.compare.rows.add_sweep(sw);
            self.sweep.kept = true;
            self.stats.comparison.clone_from(&self.compare.rows);
        }
    }
}
