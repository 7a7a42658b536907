//! The compare panel's side of the frame loop: measuring the current
//! settings into a row (through the measurement engine, one step at a time
//! while the window keeps answering), keeping finished sweeps, and the
//! exports (clipboard, CSV, JSON, the chart as PNG).

use macroquad::prelude::get_time;

use super::{files, App, STATUS_S};
use crate::machine::Machine;
use crate::measure::compare::{measure_plan, row_label, times};
use crate::measure::{FrameRecord, Outcome};
use crate::sim::memory;
use crate::ui::compare::CompareAction;

impl App {
    /// Shows `message` at the bottom of the window for a few seconds.
    pub(super) fn toast(&mut self, message: String) {
        self.stats.status = Some((message, get_time() + STATUS_S));
    }

    /// Carries out the compare panel's requests.
    pub(super) fn compare_actions(&mut self, acts: Vec<CompareAction>) {
        for a in acts {
            let c = &mut self.comparison;
            match a {
                CompareAction::Measure => self.start_measuring(),
                CompareAction::Cancel => self.cancel_measuring("cancelled"),
                CompareAction::Remove(i) => c.remove(i),
                CompareAction::MoveUp(i) => c.move_up(i),
                CompareAction::Baseline(i) => c.set_baseline(i),
                CompareAction::RemoveCurve(i) => c.remove_curve(i),
                CompareAction::Clear => c.clear(),
                CompareAction::CopyMarkdown => {
                    let md = c.to_markdown(Machine::current());
                    let n = c.rows().len();
                    self.egui.ctx().copy_text(md);
                    self.toast(format!(
                        "Copied a Markdown table of {n} row(s) to the clipboard."
                    ));
                }
                CompareAction::SaveCsv => {
                    let text = c.to_csv();
                    self.save_text("spatial-query-lab-compare", "csv", Ok(text));
                }
                CompareAction::SaveJson => {
                    let text = c.to_json();
                    self.save_text("spatial-query-lab-compare", "json", text);
                }
                CompareAction::SaveChart => self.chart_requested = true,
            }
        }
        self.stats.comparison.clone_from(&self.comparison);
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

    /// Saves a chart alone (`rect`, in points: the compare panel's or the
    /// lesson's, `which` in the message) as the next free
    /// `spatial-query-lab-chart-NNN.png` (or a download); call after the
    /// overlay is drawn.
    pub(super) fn save_chart(&mut self, rect: Option<egui_macroquad::egui::Rect>, which: &str) {
        let Some(rect) = rect else {
            self.toast(format!("Not saved: the {which} chart is not on screen."));
            return;
        };
        let scale = self.egui.ctx().pixels_per_point();
        let px = [rect.min.x, rect.min.y, rect.width(), rect.height()]
            .map(|v| (v * scale).round().max(0.0) as u32);
        let saved = crate::render::region_png(px)
            .and_then(|png| files::deliver("spatial-query-lab-chart", "png", &png));
        let message = match saved {
            Ok(to) => format!("Chart saved: {to}"),
            Err(e) => format!("Chart not saved: {e}"),
        };
        self.toast(message);
    }

    /// Starts measuring the current settings for a compare row (and opens
    /// the panel); refused while a sweep runs or units are being prepared.
    pub(super) fn start_measuring(&mut self) {
        self.view.show_compare = true;
        if self.sweep.as_ref().is_some_and(|sw| !sw.is_done()) {
            self.toast("The cell-size sweep is running: measure when it is done.".to_string());
            return;
        }
        if self.measuring.is_some() {
            return;
        }
        let plan = measure_plan(&self.settings);
        self.stats.measuring = plan.recorder().map(|r| (r.label().to_string(), 0.0));
        self.measuring = Some(plan);
    }

    /// Stops the measurement in progress, saying `why`.
    pub(super) fn cancel_measuring(&mut self, why: &str) {
        if self.measuring.take().is_some() {
            self.stats.measuring = None;
            self.toast(format!("Measurement {why}; no row added."));
        }
    }

    /// Hands a completed step (`frame`, made with `settings`) to the compare
    /// measurement, adding its row when it is done; and keeps a sweep that
    /// just finished as a curve and a row.
    pub(super) fn record_compare(
        &mut self,
        frame: FrameRecord<'_>,
        settings: &crate::sim::Settings,
    ) {
        if let Some(plan) = self.measuring.as_mut() {
            if plan.current() == Some(settings) {
                let sim = &self.sim;
                plan.record(frame, || memory::working_set(sim));
            }
            self.stats.measuring = plan
                .recorder()
                .map(|r| (r.label().to_string(), plan.progress()));
            if plan.is_done() {
                let outcome = plan.outcomes().first().cloned();
                self.measuring = None;
                match outcome {
                    Some(Outcome::Measured(mut m)) => {
                        m.label = row_label(&m.settings, m.threads);
                        let msg = format!(
                            "Measured {}: step {:.2} ms (spread {}).",
                            m.label,
                            m.ms.total.median,
                            times(m.ms.total.ratio())
                        );
                        self.comparison.add(m);
                        self.toast(msg);
                    }
                    Some(Outcome::Skipped(s)) => self.toast(format!("Not measured: {}", s.why)),
                    None => {}
                }
                self.stats.comparison.clone_from(&self.comparison);
            }
        }
        let finished = self
            .sweep
            .as_ref()
            .filter(|sw| sw.is_done() && !self.sweep_kept);
        if let Some(sw) = finished {
            self.comparison.add_sweep(sw);
            self.sweep_kept = true;
            self.stats.comparison.clone_from(&self.comparison);
        }
    }
}
