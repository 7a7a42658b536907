//! One pass through a lesson in the window, as plain data: which step is
//! shown, its settings as applied to the scene, and the page the lessons
//! panel draws. The lesson is measured as a whole ([`LessonRun::tasks`]:
//! every row step in interleaved rounds, then each sweep) by the frame
//! loop's quiet measurement (`crate::window::app`), on fresh simulations while the
//! scene waits, exactly as `spatial-query-lab lesson` measures it headless;
//! [`Session::finish`] takes the results back. The tests drive it the same way.

use super::predict::{Answer, Guess};
use super::{differences, Lesson, LessonOptions, LessonRun, Piece, StepResult};
use crate::engine::sim::Settings;
use crate::measure::compare::Comparison;
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::settings::budget::{self, Budget, GuardNotice};
use crate::settings::scenario::ScenarioView;

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
    /// The step's prediction, if it asks one.
    pub predict: Option<PredictPage>,
    /// On the summary page: every prediction step's question, guess and
    /// answer, in step order.
    pub predictions: Vec<PredictLine>,
    /// The step's presenter notes (empty: none; never projected).
    pub notes: String,
    /// The next step's title ("Summary" after the last step; empty on the
    /// summary page), for the presenter.
    pub next_title: String,
    /// The source excerpts of what the step runs ([`crate::teaching::code::for_settings`]
    /// of its applied settings), for the panel's Code tab.
    pub code: Vec<&'static str>,
    /// The step's query time as the lesson measured it, for an embed's one
    /// number ([`LessonRun::query_time`]): "0.52 ms (0.50–0.55)", or
    /// [`crate::teaching::lesson::text::PENDING`] until measured; `None` on the
    /// summary page and where the step has no query time here.
    pub query_time: Option<String>,
}

/// A prediction step as the panel shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredictPage {
    /// The question.
    pub question: String,
    /// The answer's unit ("x").
    pub unit: String,
    /// The choices offered, each with its text ("4x"); empty: a typed guess.
    pub choices: Vec<(f64, String)>,
    /// What the class answered; `None`: the question is still open (the
    /// step's text is hidden until it is answered).
    pub guess: Option<Guess>,
    /// The reveal once answered ([`super::predict::Predict::reveal`]).
    pub reveal: Option<String>,
    /// The answer is not measured yet.
    pub pending: bool,
    /// The lesson's measurement runs now (a pending answer fills in when it
    /// ends; without one it waits for "Measure again").
    pub measuring: bool,
}

/// One prediction on the summary page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PredictLine {
    /// Step number, 1-based.
    pub step: usize,
    /// The question.
    pub question: String,
    /// The reveal: the guess (or "not guessed") against the measured answer.
    pub reveal: String,
}

impl LessonPage {
    /// The page as plain text, in the order the panel shows it: the
    /// lesson's title, the step's number and title (or "Summary"), its
    /// text, why it was not measured, the measurement in progress. For the
    /// browser page's screen-reader mirror ([`crate::platform::browser::page_text`])
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
        if let Some(q) = &self.predict {
            out += &format!("Predict: {}\n", q.question);
            match &q.reveal {
                Some(r) => out += &format!("Answer: {r}\n"),
                None => out += "The step's text shows once the question is answered.\n",
            }
        }
        out += &crate::teaching::lesson::text::plain(&self.text);
        for p in &self.predictions {
            out += &format!("\nPrediction, step {}: {} {}", p.step, p.question, p.reveal);
        }
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
    /// Per step: the class's answer to its prediction, once given.
    guesses: Vec<Option<Guess>>,
}

impl Session {
    /// A session of `lesson` on its first step; call [`Session::enter`]`(0)`.
    pub fn new(lesson: Lesson, options: LessonOptions) -> Self {
        let n = lesson.steps.len();
        Session {
            run: LessonRun::new(lesson, options),
            step: 0,
            applied: Settings::default(),
            guesses: vec![None; n],
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
            settings.kernel = crate::engine::spatial::Kernel::best();
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

    /// Keeps `guess` as the answer to step `k`'s prediction (replacing an
    /// earlier one); nothing for a step that asks none.
    pub fn guess(&mut self, k: usize, guess: Guess) {
        let asks = k < self.run.len() && self.run.step(k).predict.is_some();
        if let (true, Some(slot)) = (asks, self.guesses.get_mut(k)) {
            *slot = Some(guess);
        }
    }

    /// The answer given to step `k`'s prediction, if any.
    pub fn guessed(&self, k: usize) -> Option<Guess> {
        self.guesses.get(k).copied().flatten()
    }

    /// Forgets every answer given, so each question is asked again (a
    /// restarted lesson).
    pub fn forget_guesses(&mut self) {
        self.guesses.fill(None);
    }

    /// True when the step shown asks a prediction not answered yet. A step
    /// that cannot run here asks nothing ([`Session::page`] shows no
    /// question for it).
    pub fn asking(&self) -> bool {
        self.step < self.run.len()
            && self.run.step(self.step).predict.is_some()
            && self.run.cannot_run(self.step).is_none()
            && self.guessed(self.step).is_none()
    }

    /// [`Session::enter`] of the step `by` steps away (clamped); `None`
    /// when that is the step shown. Forward from a question not answered
    /// yet reveals its answer first (the guess [`Guess::Skipped`]) and
    /// stays: a presenter's clicker reveals, then moves on.
    pub fn go(&mut self, by: i64, budget: &Budget) -> Option<Entered> {
        if by > 0 && self.asking() {
            self.guess(self.step, Guess::Skipped);
            return None;
        }
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
            measuring: measuring.clone(),
            measured: on_step && run.result(k).is_some(),
            // Known before the measurement ends for a step this build or
            // machine cannot run.
            skipped: if on_step {
                run.skipped(k).or_else(|| run.cannot_run(k))
            } else {
                None
            },
            cut,
            how: format!(
                "{} of {}, every step on a fresh simulation",
                crate::format::counted(run.rounds(), "interleaved round"),
                crate::format::counted(run.spec().frames, "counted frame")
            ),
            differs,
            chart: run.comparison(),
            predict: if on_step {
                self.predict_page(k, measuring.is_some())
            } else {
                None
            },
            predictions: if on_step {
                Vec::new()
            } else {
                self.predict_lines()
            },
            notes: if on_step {
                run.step(k).notes.clone()
            } else {
                String::new()
            },
            code: if on_step {
                crate::teaching::code::for_settings(&self.applied)
            } else {
                Vec::new()
            },
            query_time: on_step
                .then(|| run.query_time(k))
                .flatten()
                .map(|a| match a {
                    Answer::Measured(m) => m.shown,
                    _ => crate::teaching::lesson::text::PENDING.to_string(),
                }),
            next_title: match k + 1 {
                j if j < n => run.step(j).title.clone(),
                j if j == n => "Summary".to_string(),
                _ => String::new(),
            },
        }
        .hide_unanswered()
    }

    /// Step `k`'s prediction as the panel shows it, if it asks one.
    /// A step that cannot run here (a kernel this CPU or build lacks) asks
    /// nothing: its answer would never come.
    fn predict_page(&self, k: usize, measuring: bool) -> Option<PredictPage> {
        if self.run.cannot_run(k).is_some() {
            return None;
        }
        let p = self.run.step(k).predict.as_ref()?;
        let guess = self.guessed(k);
        let answer = self.run.answer(k).unwrap_or(Answer::Pending);
        Some(PredictPage {
            question: p.question.clone(),
            unit: p.unit.clone(),
            choices: p.choices.iter().map(|&c| (c, p.guess_text(c))).collect(),
            guess,
            reveal: guess.map(|g| p.reveal(g.number(), &answer)),
            pending: answer == Answer::Pending,
            measuring,
        })
    }

    /// Every prediction step's line for the summary page, in step order.
    pub fn predict_lines(&self) -> Vec<PredictLine> {
        (0..self.run.len())
            .filter(|&k| self.run.cannot_run(k).is_none())
            .filter_map(|k| {
                let p = self.run.step(k).predict.as_ref()?;
                let answer = self.run.answer(k).unwrap_or(Answer::Pending);
                let guess = self.guessed(k).and_then(Guess::number);
                let reveal = match guess {
                    Some(_) => p.reveal(guess, &answer),
                    None => format!("not guessed; {}", p.reveal(None, &answer)),
                };
                Some(PredictLine {
                    step: k + 1,
                    question: p.question.clone(),
                    reveal,
                })
            })
            .collect()
    }
}

impl LessonPage {
    /// The page with the step's text hidden while its question is open,
    /// so that the page does not answer its own question.
    fn hide_unanswered(mut self) -> Self {
        if self.predict.as_ref().is_some_and(|p| p.guess.is_none()) {
            self.text.clear();
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::run::Job;
    use crate::teaching::lesson::predict::Guess;

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
        assert_eq!(e.settings.strategy, crate::engine::spatial::Strategy::Grid);
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
        assert!(
            page.how
                .starts_with("3 interleaved rounds of 1 counted frame,"),
            "{}",
            page.how
        );
        assert!(s.go(1, &budget).is_none(), "the summary page");
        assert_eq!(s.step(), 2);
        assert_eq!(s.page(&e.settings, None).chart.curves().len(), 1);
    }

    /// A question on a step that cannot run here is never asked: Page
    /// Down moves on at once. A restart forgets the answers given.
    #[test]
    fn a_step_that_cannot_run_asks_nothing_and_a_restart_asks_again() {
        let budget = Budget::default();
        let ask = |kernel: &str| {
            format!(
                "title = \"t\"\n[[steps]]\nid = \"a\"\ntitle = \"A\"\ntext = \"a\"\n\
                 [[steps]]\nid = \"b\"\ntitle = \"B\"\nsettings = {{ strategy = \"sorted-grid\", kernel = \"{kernel}\" }}\n\
                 predict = {{ question = \"a over b?\", answer = \"{{a.query_ms / b.query_ms}}\", unit = \"x\" }}\ntext = \"b\"\n"
            )
        };
        let mut s = Session::new(
            Lesson::parse(&ask("scalar"), "s.toml", "s").unwrap(),
            LessonOptions::default(),
        );
        s.enter(1, &budget);
        assert!(s.asking());
        s.guess(1, Guess::Number(2.0));
        assert!(!s.asking());
        // Not measured: pending, and whether a measurement runs to fill it.
        let live = Settings::default();
        let q = s.page(&live, Some((0.5, "A".into()))).predict.unwrap();
        assert!(q.pending && q.measuring, "{q:?}");
        assert_eq!(
            q.reveal.as_deref(),
            Some("you guessed 2x; not measured yet")
        );
        let q = s.page(&live, None).predict.unwrap();
        assert!(q.pending && !q.measuring, "a cancelled measurement: {q:?}");
        s.forget_guesses();
        assert!(s.asking() && s.guessed(1).is_none());
        let Some(k) = crate::engine::spatial::Kernel::ALL
            .into_iter()
            .find(|k| !k.is_available())
        else {
            return; // a CPU with every kernel
        };
        let mut s = Session::new(
            Lesson::parse(&ask(k.key()), "s.toml", "s").unwrap(),
            LessonOptions::default(),
        );
        s.enter(1, &budget);
        assert!(!s.asking(), "{k:?} cannot run here");
        assert!(s.page(&Settings::default(), None).predict.is_none());
        assert!(s.go(1, &budget).is_none(), "the summary page");
        assert_eq!(s.step(), 2, "moved on with one press");
    }
}
