//! One pass through a lesson in the window, as plain data: which step is
//! shown, its settings as applied, the measurement in progress on the live
//! simulation, and the page the lessons panel draws. The frame loop
//! (`crate::app`) applies what [`Session::enter`] returns and hands every
//! completed step to [`Session::record`]; the tests drive it the same way.

use super::{differences, export, Lesson, LessonOptions, LessonRun, Piece, StepResult};
use crate::measure::compare::{Comparison, MEASURE_GUARDS};
use crate::measure::sweep::CellSweep;
use crate::measure::{FrameRecord, Plan, Variant};
use crate::scenario::ScenarioView;
use crate::sim::budget::{self, Budget, GuardNotice};
use crate::sim::memory::WorkingSet;
use crate::sim::Settings;

/// The page of the lesson being followed, for the lessons panel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LessonPage {
    /// The lesson's title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Index of the step shown; equal to `steps` on the summary page.
    pub step: usize,
    /// Number of steps.
    pub steps: usize,
    /// The step's title (empty on the summary page).
    pub step_title: String,
    /// The step's text, or the conclusion on the summary page, filled.
    pub text: Vec<Piece>,
    /// The measurement in progress and its progress, 0 to 1.
    pub measuring: Option<f64>,
    /// The step has a result (measured or skipped).
    pub measured: bool,
    /// Why the step was not measured, if it was not.
    pub skipped: Option<String>,
    /// The settings the user changed away from the step's (scenario names).
    pub differs: Vec<&'static str>,
    /// The rows measured so far (the chart of the summary page).
    pub chart: Comparison,
}

/// What entering a step asks of the frame loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Entered {
    /// The settings to run (the step's, through the budget guards, with a
    /// kernel this CPU lacks replaced by Scalar).
    pub settings: Settings,
    /// The view values the step sets.
    pub view: ScenarioView,
    /// Open the memory view.
    pub memory_view: bool,
    /// What the budget guards changed, for the overlay's notices.
    pub notices: Vec<GuardNotice>,
}

/// One pass through a lesson in the window.
#[derive(Clone, Debug)]
pub struct Session {
    run: LessonRun,
    step: usize,
    applied: Settings,
    plan: Option<Plan>,
    pending: bool,
    sweeping: bool,
}

impl Session {
    /// A session of `lesson` on its first step; call [`Session::enter`]`(0)`.
    pub fn new(lesson: Lesson, options: LessonOptions) -> Self {
        Session {
            run: LessonRun::new(lesson, options),
            step: 0,
            applied: Settings::default(),
            plan: None,
            pending: false,
            sweeping: false,
        }
    }

    /// The run: the lesson, its results.
    pub fn run(&self) -> &LessonRun {
        &self.run
    }

    /// The step shown; `run().len()` on the summary page.
    pub fn step(&self) -> usize {
        self.step
    }

    /// The settings the shown step applied.
    pub fn applied(&self) -> &Settings {
        &self.applied
    }

    /// True while the step's sweep runs (the window's sweep).
    pub fn sweeping(&self) -> bool {
        self.sweeping
    }

    /// Stops a measurement in progress; returns true when it was a sweep
    /// (the frame loop closes its sweep).
    pub fn stop(&mut self) -> bool {
        self.plan = None;
        self.pending = false;
        std::mem::take(&mut self.sweeping)
    }

    /// Shows step `k` (clamped; `run().len()` is the summary page) and
    /// returns what to apply: the step's settings through the guards of
    /// `budget`, its view. The step is measured once a step with these
    /// settings completes, unless it has a result already (`force`
    /// measures again). `None` on the summary page.
    pub fn enter(&mut self, k: usize, budget: &Budget, force: bool) -> Option<Entered> {
        self.stop();
        self.step = k.min(self.run.len());
        if self.step >= self.run.len() {
            return None;
        }
        let k = self.step;
        let mut settings = self.run.settings(k);
        if !settings.kernel.is_available() {
            // Not measured here: the window keeps the widest kernel it has.
            settings.kernel = crate::spatial::Kernel::best();
        }
        let notices = budget::settle(&mut settings, budget);
        self.applied = settings.clone();
        self.pending = force || self.run.result(k).is_none();
        Some(Entered {
            settings,
            view: self.run.view(k),
            memory_view: self.run.step(k).memory_view,
            notices,
        })
    }

    /// [`Session::enter`] of the step `by` steps away (clamped).
    pub fn go(&mut self, by: i64, budget: &Budget) -> Option<Entered> {
        let k = (self.step as i64 + by).clamp(0, self.run.len() as i64) as usize;
        if k == self.step {
            return None;
        }
        self.enter(k, budget, false)
    }

    /// Forgets every result and shows the first step.
    pub fn restart(&mut self, budget: &Budget) -> Option<Entered> {
        self.run.clear();
        self.enter(0, budget, true)
    }

    /// Takes a completed step of the live simulation (`frame`, made with
    /// `settings`): records it into the step's measurement, keeps the
    /// result when it is done, or starts the measurement when the step's
    /// settings run and it is due. Returns true when the frame loop must
    /// start its cell-size sweep now (then call [`Session::sweep_started`]).
    /// A change of settings during a measurement ends it (the page says
    /// how the settings differ; [`Session::enter`] with `force` restores).
    pub fn record(
        &mut self,
        frame: FrameRecord<'_>,
        settings: &Settings,
        working_set: impl FnOnce() -> WorkingSet,
    ) -> bool {
        let k = self.step;
        if k >= self.run.len() {
            return false;
        }
        if let Some(plan) = self.plan.as_mut() {
            if plan.current() == Some(settings) {
                plan.record(frame, working_set);
            } else if !plan.is_done() {
                self.plan = None;
                return false;
            }
            self.finish_plan();
            return false;
        }
        let sweep_step = self.run.step(k).sweep;
        if !self.pending || !differences(&self.applied, settings, sweep_step).is_empty() {
            return false;
        }
        self.pending = false;
        if sweep_step {
            return true;
        }
        let mut v = Variant::new(self.run.step(k).title.clone(), settings.clone());
        v.skip = self.run.cannot_run(k);
        let predictor = crate::bench::naive_predictor(settings.seed, settings.workload);
        let mut plan =
            Plan::new(vec![v], self.run.spec(), MEASURE_GUARDS).with_predictor(predictor);
        // This step ran with the step's settings: it is the first recorded.
        plan.record(frame, working_set);
        self.plan = Some(plan);
        self.finish_plan();
        false
    }

    /// Keeps the plan's outcome when it is done.
    fn finish_plan(&mut self) {
        let done = self.plan.as_ref().filter(|p| p.is_done());
        if let Some(o) = done.and_then(|p| p.outcomes().first()).cloned() {
            self.run.record(self.step, StepResult::Row(o));
        }
        if done.is_some() {
            self.plan = None;
        }
    }

    /// Whether the frame loop's sweep started (it refuses while a compare
    /// measurement runs: the step is measured at a later frame).
    pub fn sweep_started(&mut self, started: bool) {
        self.sweeping = started;
        self.pending = !started;
    }

    /// The frame loop's sweep as it is now: a finished one is the step's
    /// result; a closed one (`None`) ends the step's measurement.
    pub fn sweep_update(&mut self, sweep: Option<&CellSweep>) {
        if !self.sweeping {
            return;
        }
        match sweep {
            Some(sw) if sw.is_done() => {
                self.run
                    .record(self.step, StepResult::Sweep(Box::new(sw.clone())));
                self.sweeping = false;
            }
            Some(_) => {}
            None => self.sweeping = false,
        }
    }

    /// The panel's page, with `live` the settings running now and
    /// `sweep_progress` the frame loop's sweep's progress.
    pub fn page(&self, live: &Settings, sweep_progress: Option<f64>) -> LessonPage {
        let run = &self.run;
        let n = run.len();
        let k = self.step;
        let on_step = k < n;
        let measuring = if let Some(p) = &self.plan {
            Some(p.progress())
        } else if self.sweeping {
            Some(sweep_progress.unwrap_or(0.0))
        } else if self.pending {
            Some(0.0)
        } else {
            None
        };
        let differs = if on_step {
            differences(&self.applied, live, run.step(k).sweep)
        } else {
            Vec::new()
        };
        LessonPage {
            title: run.lesson().title.clone(),
            summary: run.lesson().summary.clone(),
            step: k,
            steps: n,
            step_title: if on_step {
                run.step(k).title.clone()
            } else {
                String::new()
            },
            text: if on_step {
                run.text(k)
            } else {
                run.conclusion()
            },
            // A measurement that cannot start while the settings differ.
            measuring: if differs.is_empty() { measuring } else { None },
            measured: on_step && run.result(k).is_some(),
            skipped: if on_step {
                export::skipped(run, k)
            } else {
                None
            },
            differs,
            chart: run.comparison(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::StepStats;
    use crate::spatial::{GridGeometry, QueryStats};

    const SWEEP: &str = r#"
title = "t"
frames = 1
settle = 0
[settings]
units = 2000
strategy = "grid"
[[steps]]
id = "a"
title = "A"
sweep = true
text = "best {sweep_best_cell_over_r} r"
[[steps]]
id = "b"
title = "B"
text = "{query_ms} ms"
"#;

    fn step(cell: f32, query_ms: f64) -> StepStats {
        StepStats {
            query_s: query_ms * 1e-3,
            query: QueryStats {
                candidates: 1_000,
                neighbors: 100,
            },
            grid: Some(GridGeometry {
                cell,
                ..Default::default()
            }),
            threads: 1,
            ..Default::default()
        }
    }

    /// A sweep step asks the frame loop for its sweep once its settings
    /// run, records the finished sweep, and a refused start waits.
    #[test]
    fn a_sweep_step_starts_the_sweep_and_keeps_it() {
        let lesson = Lesson::parse(SWEEP, "s.toml", "s").unwrap();
        let mut s = Session::new(lesson, LessonOptions::default());
        let budget = Budget::default();
        let e = s.enter(0, &budget, false).unwrap();
        let live = e.settings;
        let st = step(live.cell_size, 1.0);
        let frame = FrameRecord::headless(&st, live.units, 0, 0);
        // Other settings running: nothing starts.
        let other = Settings {
            units: 3000,
            ..live.clone()
        };
        assert!(!s.record(frame, &other, WorkingSet::default));
        assert!(
            s.record(frame, &live, WorkingSet::default),
            "start the sweep"
        );
        // Refused (a compare measurement runs): asked again at the next step.
        s.sweep_started(false);
        assert!(s.record(frame, &live, WorkingSet::default));
        s.sweep_started(true);
        assert!(s.sweeping());
        let mut sw = s.run().sweep(0).unwrap();
        s.sweep_update(Some(&sw));
        assert!(s.run().result(0).is_none(), "not done yet");
        while let Some(cell) = sw.cell_size() {
            let st = step(cell, (cell as f64 - 12.0).abs() + 1.0);
            sw.record_step(&st);
        }
        s.sweep_update(Some(&sw));
        assert!(!s.sweeping());
        let page = s.page(&live, None);
        assert!(page.measured && page.measuring.is_none());
        assert_eq!(page.chart.curves().len(), 1);
        let text = super::super::text::plain(&page.text);
        let best = sw.best().unwrap().ratio;
        assert_eq!(text, format!("best {} r", crate::format::length(best)));
        // The next step measures a row; a closed sweep would have ended it.
        let e = s.go(1, &budget).unwrap();
        assert_eq!(s.step(), 1);
        let st = step(e.settings.cell_size, 2.0);
        let frame = FrameRecord::headless(&st, e.settings.units, 0, 0);
        assert!(!s.record(frame, &e.settings, WorkingSet::default));
        assert!(s.page(&e.settings, None).measured, "one counted frame");
        assert_eq!(super::super::text::plain(&s.run().text(1)), "2.00 ms");
    }
}
