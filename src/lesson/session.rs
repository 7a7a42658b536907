//! One pass through a lesson in the window, as plain data: which step is
//! shown, its settings as applied to the scene, and the page the lessons
//! panel draws. The lesson is measured as a whole ([`LessonRun::tasks`]:
//! every row step in interleaved rounds, then each sweep) by the frame
//! loop's quiet measurement (`crate::app`), on fresh simulations while the
//! scene waits, exactly as `spatial-query-lab lesson` measures it headless;
//! [`Session::finish`] takes the results back. The tests drive it the same way.

use super::{differences, export, Lesson, LessonOptions, LessonRun, Piece, StepResult};
use crate::measure::compare::Comparison;
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::scenario::ScenarioView;
use crate::sim::budget::{self, Budget, GuardNotice};
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
    /// The lesson's measurement in progress: its progress (0 to 1) and
    /// what it measures now.
    pub measuring: Option<(f64, String)>,
    /// The step has a result (measured or skipped).
    pub measured: bool,
    /// Why the step was not measured, if it was not.
    pub skipped: Option<String>,
    /// "3 of 8 frames per round: …" when a guard cut the step's frames.
    pub cut: Option<String>,
    /// How the lesson is measured: "5 interleaved rounds of 8 frames".
    pub how: String,
    /// The settings the user changed away from the step's (scenario names).
    pub differs: Vec<&'static str>,
    /// The rows measured so far (the chart of the summary page).
    pub chart: Comparison,
}

impl LessonPage {
    /// The page as plain text, in the order the panel shows it: the
    /// lesson's title, the step's number and title (or "Summary"), its
    /// text, why it was not measured, the measurement in progress. For the
    /// browser page's screen-reader mirror ([`crate::browser::page_text`])
    /// and for tests that read the panel without pixels. Allocates.
    pub fn plain_text(&self) -> String {
        let mut out = self.title.clone();
        if self.step < self.steps {
            out += &format!(
                "\nStep {} of {}: {}",
                self.step + 1,
                self.steps,
                self.step_title
            );
        } else {
            out += "\nSummary";
        }
        out += "\n";
        out += &crate::lesson::text::plain(&self.text);
        match (&self.measuring, &self.skipped) {
            (Some((progress, what)), _) => {
                out += &format!("\nMeasuring the lesson: {:.0}% {what}", progress * 100.0)
            }
            (None, Some(why)) => out += &format!("\nNot measured: {why}."),
            _ => {}
        }
        out
    }
}

/// What entering a step asks of the frame loop.
#[derive(Clone, Debug)]
pub struct Entered {
    /// The settings to run (the step's, through the budget guards, with a
    /// kernel this CPU lacks replaced by the widest it has).
    pub settings: Settings,
    /// The view values the step sets.
    pub view: ScenarioView,
    /// Open the memory view.
    pub memory_view: bool,
    /// The step's finished sweep, for the sweep window (a sweep step).
    pub sweep: Option<CellSweep>,
    /// What the budget guards changed, for the overlay's notices.
    pub notices: Vec<GuardNotice>,
}

/// One pass through a lesson in the window.
#[derive(Clone, Debug)]
pub struct Session {
    run: LessonRun,
    step: usize,
    applied: Settings,
}

impl Session {
    /// A session of `lesson` on its first step; call [`Session::enter`]`(0)`.
    pub fn new(lesson: Lesson, options: LessonOptions) -> Self {
        Session {
            run: LessonRun::new(lesson, options),
            step: 0,
            applied: Settings::default(),
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

    /// True when some step has no result yet: the lesson wants measuring.
    pub fn needs_measuring(&self) -> bool {
        !self.run.is_complete()
    }

    /// What measures the whole lesson ([`LessonRun::tasks`]), forgetting
    /// the results so far.
    pub fn tasks(&mut self) -> Vec<Task> {
        self.run.clear();
        self.run.tasks()
    }

    /// Takes back the measured `tasks` ([`LessonRun::record_tasks`]).
    pub fn finish(&mut self, tasks: &[Task]) {
        self.run.record_tasks(tasks);
    }

    /// Shows step `k` (clamped; `run().len()` is the summary page) and
    /// returns what to apply to the scene: the step's settings through the
    /// guards of `budget`, its view, its finished sweep. `None` on the
    /// summary page.
    pub fn enter(&mut self, k: usize, budget: &Budget) -> Option<Entered> {
        self.step = k.min(self.run.len());
        if self.step >= self.run.len() {
            return None;
        }
        let k = self.step;
        let mut settings = self.run.settings(k);
        if !settings.kernel.is_available() {
            // Not measured here: the scene shows the widest kernel it has.
            settings.kernel = crate::spatial::Kernel::best();
        }
        let notices = budget::settle(&mut settings, budget);
        self.applied = settings.clone();
        let sweep = match self.run.result(k) {
            Some(StepResult::Sweep(sw)) => Some(sw.as_ref().clone()),
            _ => None,
        };
        Some(Entered {
            settings,
            view: self.run.view(k),
            memory_view: self.run.step(k).memory_view,
            sweep,
            notices,
        })
    }

    /// [`Session::enter`] of the step `by` steps away (clamped); `None`
    /// when that is the step shown.
    pub fn go(&mut self, by: i64, budget: &Budget) -> Option<Entered> {
        let k = (self.step as i64 + by).clamp(0, self.run.len() as i64) as usize;
        if k == self.step {
            return None;
        }
        self.enter(k, budget)
    }

    /// The panel's page, with `live` the settings running now and
    /// `measuring` the lesson's measurement in progress, if one runs.
    pub fn page(&self, live: &Settings, measuring: Option<(f64, String)>) -> LessonPage {
        let run = &self.run;
        let n = run.len();
        let k = self.step;
        let on_step = k < n;
        let differs = if on_step {
            differences(&self.applied, live, run.step(k).sweep)
        } else {
            Vec::new()
        };
        let cut = on_step
            .then(|| run.result(k).and_then(StepResult::outcome))
            .flatten()
            .and_then(|o| o.measured().and_then(|m| m.cut_note()));
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
            measuring,
            measured: on_step && run.result(k).is_some(),
            // Known before the measurement ends for a step this build or
            // machine cannot run.
            skipped: if on_step {
                export::skipped(run, k).or_else(|| run.cannot_run(k))
            } else {
                None
            },
            cut,
            how: format!(
                "{} interleaved rounds of {} counted frames, every step on a fresh simulation",
                run.rounds(),
                run.spec().frames
            ),
            differs,
            chart: run.comparison(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::run::Job;

    const SMALL: &str = r#"
title = "t"
frames = 1
settle = 0
rounds = 3
[settings]
units = 1500
[[steps]]
id = "a"
title = "A"
settings = { strategy = "grid" }
sweep = true
text = "best {sweep_best_cells}"
[[steps]]
id = "b"
title = "B"
settings = { strategy = "sorted-grid" }
text = "{query_ms} ms, against a: {verdict(b.query_ms, a.query_ms)}"
"#;

    /// The window's lesson: entering steps applies their settings without
    /// measuring; the job of its tasks measures every step, and the pages
    /// then quote it; a sweep step hands its finished sweep to the window.
    #[test]
    fn a_session_is_measured_as_a_whole_and_then_stepped_through() {
        let lesson = Lesson::parse(SMALL, "s.toml", "s").unwrap();
        let mut s = Session::new(lesson, LessonOptions::default());
        let budget = Budget::default();
        let e = s.enter(0, &budget).unwrap();
        assert_eq!(e.settings.strategy, crate::spatial::Strategy::Grid);
        assert!(e.sweep.is_none(), "not measured yet");
        assert!(s.needs_measuring());
        let page = s.page(&e.settings, Some((0.5, "B, round 2 of 3".into())));
        assert_eq!(page.measuring.as_ref().map(|m| m.0), Some(0.5));
        assert_eq!(super::super::text::plain(&page.text), "best …");
        let mut job = Job::new(s.tasks(), 1.0 / 60.0, false);
        job.run();
        s.finish(job.tasks());
        assert!(!s.needs_measuring());
        let e = s.enter(0, &budget).unwrap();
        assert!(e.sweep.as_ref().is_some_and(CellSweep::is_done));
        let e = s.go(1, &budget).unwrap();
        let page = s.page(&e.settings, None);
        assert!(page.measured && page.measuring.is_none());
        let text = super::super::text::plain(&page.text);
        assert!(text.contains(" ms, against a: "), "{text}");
        assert!(!text.contains('…'), "{text}");
        assert!(page
            .how
            .starts_with("3 interleaved rounds of 1 counted frames"));
        assert!(s.go(1, &budget).is_none(), "the summary page");
        assert_eq!(s.step(), 2);
        assert_eq!(s.page(&e.settings, None).chart.curves().len(), 1);
    }
}
