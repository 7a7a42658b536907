//! The cell-size sweep: started from the overlay, the `\` key or
//! `--sweep`, run one cell size per step by the frame loop
//! ([`App::step`]), stopped when another setting changes, kept in the
//! compare panel once finished, exported as CSV or a chart.
//!
//! [`SweepState`] owns the sweep; its methods read a [`SweepContext`] and
//! ask the window through [`Requests`].

use super::requests::{ChartRequest, Request, Requests};
use super::App;
use crate::engine::sim::{Settings, StepStats};
use crate::engine::spatial::Strategy;
use crate::measure::memory::WorkingSet;
use crate::measure::sweep::CellSweep;
use crate::measure::FrameRecord;
use crate::settings::budget::Budget;
use crate::window::ui::sweep::SweepAction;

/// The cell-size sweep's state in the frame loop.
#[derive(Default)]
pub(super) struct SweepState {
    /// The sweep, running or finished (shown until closed).
    pub run: Option<CellSweep>,
    /// Start the sweep after the next step (`--sweep`).
    pub at_launch: bool,
    /// The finished sweep was added to the compare panel.
    kept: bool,
}

/// What the sweep reads of the window when asked to start or save.
pub(super) struct SweepContext<'a> {
    /// The settings running now: the sweep varies their cell size.
    pub settings: &'a Settings,
    /// The budgets that bound the cell sizes tried.
    pub budget: &'a Budget,
    /// The last step's numbers: the base of the step-time predictions.
    pub baseline: &'a StepStats,
    /// A quiet measurement runs (a sweep then waits for it).
    pub measuring: bool,
}

impl SweepState {
    /// No sweep yet; one starts after the first step when `at_launch`
    /// (`--sweep`).
    pub fn new(at_launch: bool) -> Self {
        SweepState {
            at_launch,
            ..SweepState::default()
        }
    }

    /// Starts, applies or closes the sweep, or saves it. A sweep starts
    /// from the last step (the base of its step-time predictions) with the
    /// sweep's default limits ([`crate::measure::sweep::SWEEP_SKIP_ABOVE_S`]):
    /// a slow step is spread over refreshes or run on the worker thread, so
    /// the window keeps answering, and the drawing's time is not taken from
    /// the step's (at 100,000 units the software rasterizer's 50-85 ms left
    /// no room, and every cell size was skipped). Naive (no grid) has
    /// nothing to sweep.
    pub fn action(&mut self, action: SweepAction, cx: &SweepContext, out: &mut Requests) {
        match action {
            SweepAction::Start if cx.measuring => {
                out.toast("A measurement is running: sweep when it is done.");
            }
            SweepAction::Start if cx.settings.strategy != Strategy::Naive => {
                self.kept = false;
                let sweep = CellSweep::standard(cx.settings, cx.budget).with_baseline(cx.baseline);
                self.run = Some(sweep);
            }
            SweepAction::Start => {}
            SweepAction::UseBest => {
                if let Some(best) = self.run.as_ref().and_then(CellSweep::best) {
                    out.push(Request::CellSize(best.cell_size));
                }
                self.run = None;
            }
            SweepAction::Close => self.run = None,
            SweepAction::SaveChart | SweepAction::SaveCsv => {
                if let Some(sw) = &self.run {
                    let w = sw.work();
                    let label = format!(
                        "{} / {}, {} units",
                        w.strategy.name(),
                        w.layout.name(),
                        crate::format::thousands(w.units as u64)
                    );
                    let curves = [crate::measure::compare::SweepCurve::of(sw, label)];
                    if action == SweepAction::SaveCsv {
                        let csv = crate::measure::compare::export::curves_csv(&curves);
                        out.push(Request::SaveText {
                            stem: "spatial-query-lab-sweep",
                            ext: "csv",
                            text: Ok(csv),
                        });
                    } else {
                        let chart = crate::teaching::chart::sweep_curves(
                            &curves,
                            crate::measure::machine::Machine::current(),
                            "Cell-size sweep",
                        );
                        out.push(Request::SaveChart(Box::new(ChartRequest {
                            chart,
                            rect: None,
                            which: "sweep",
                        })));
                    }
                }
            }
        }
    }

    /// Whether a sweep is open (running or finished).
    pub fn is_open(&self) -> bool {
        self.run.is_some()
    }

    /// Whether a sweep runs (started and not finished).
    pub fn is_running(&self) -> bool {
        self.run.as_ref().is_some_and(|sw| !sw.is_done())
    }

    /// The cell size the running sweep measures at the next step, world
    /// units, if one runs.
    pub fn cell_size(&self) -> Option<f32> {
        self.run.as_ref().and_then(CellSweep::cell_size)
    }

    /// Stops a running sweep when `settings` changed other than in the cell
    /// size; returns whether it stopped.
    pub fn stop_unless_matching(&mut self, settings: &Settings) -> bool {
        match self.run.as_mut().filter(|sw| !sw.is_done()) {
            Some(sw) if !sw.matches(settings) => {
                sw.stop("a setting other than the cell size changed");
                true
            }
            _ => false,
        }
    }

    /// Records a step that measured the sweep's cell size (`working_set`:
    /// the working set, computed only when the sweep wants it); returns
    /// whether a sweep took it.
    pub fn record(
        &mut self,
        frame: FrameRecord<'_>,
        working_set: impl FnOnce() -> WorkingSet,
    ) -> bool {
        let Some(sw) = self.run.as_mut() else {
            return false;
        };
        sw.record(frame, working_set);
        true
    }

    /// The finished sweep not yet kept in the compare panel, marked kept.
    pub fn keep(&mut self) -> Option<&CellSweep> {
        let sw = self.run.as_ref().filter(|sw| sw.is_done() && !self.kept)?;
        self.kept = true;
        Some(sw)
    }

    /// Shows a lesson step's finished sweep (already in the lesson, so not
    /// kept in the compare panel).
    pub fn show_finished(&mut self, sw: CellSweep) {
        self.run = Some(sw);
        self.kept = true;
    }
}

impl App {
    /// Carries out one of the sweep's requests ([`SweepState::action`]),
    /// then shows the sweep.
    pub(super) fn sweep_action(&mut self, action: SweepAction) {
        let cx = SweepContext {
            settings: &self.settings,
            budget: &self.guards.budget,
            baseline: &self.stats.step,
            measuring: self.quiet.is_running(),
        };
        let mut out = Requests::default();
        self.sweep.action(action, &cx, &mut out);
        self.carry_out(out);
        self.stats.sweep.clone_from(&self.sweep.run);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_starts_only_for_a_grid_and_never_during_a_measurement() {
        let grid = Settings {
            strategy: Strategy::Grid,
            ..Settings::default()
        };
        let (budget, baseline) = (Budget::default(), StepStats::default());
        let cx = |settings, measuring| SweepContext {
            settings,
            budget: &budget,
            baseline: &baseline,
            measuring,
        };
        let mut sweep = SweepState::new(false);
        let mut out = Requests::default();
        sweep.action(SweepAction::Start, &cx(&grid, true), &mut out);
        assert!(!sweep.is_open());
        assert!(matches!(out.as_slice(), [Request::Toast(_)]));
        let naive = Settings {
            strategy: Strategy::Naive,
            ..Settings::default()
        };
        let mut out = Requests::default();
        sweep.action(SweepAction::Start, &cx(&naive, false), &mut out);
        assert!(!sweep.is_open() && out.as_slice().is_empty());
        sweep.action(SweepAction::Start, &cx(&grid, false), &mut out);
        assert!(sweep.is_running() && sweep.cell_size().is_some());
        assert!(sweep.keep().is_none(), "a running sweep is not kept");
        // Another setting than the cell size stops it.
        let other = Settings {
            radius: grid.radius * 2.0,
            ..grid.clone()
        };
        assert!(!sweep.stop_unless_matching(&grid));
        assert!(sweep.stop_unless_matching(&other));
        assert!(!sweep.is_running());
        // Nothing measured: no best cell size to use; the sweep closes.
        sweep.action(SweepAction::UseBest, &cx(&grid, false), &mut out);
        assert!(!sweep.is_open() && out.as_slice().is_empty());
    }
}
