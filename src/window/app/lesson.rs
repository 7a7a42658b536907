//! The lessons panel: a [`Session`] whose steps' settings and view are
//! applied to the scene, measured as a whole by a quiet measurement
//! ([`super::quiet`]) when the lesson opens or "Measure again" is pressed,
//! its exports, and the presenter view that follows its steps
//! ([`super::presenter`]).
//!
//! [`LessonPanel`] owns the panel's state; its methods read a
//! [`LessonContext`], write the panel's part of the overlay's numbers
//! ([`Shown`]) and ask the rest of the window through [`Requests`] (a
//! step's settings are applied by [`App::enter_step`]).

use super::presenter::Presenter;
use super::quiet::Purpose;
use super::requests::{ChartRequest, Request, Requests};
use super::App;
use crate::engine::sim::Settings;
use crate::measure::machine::Machine;
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::measure::Measurement;
use crate::settings::budget::Budget;
use crate::teaching::lesson::predict::Guess;
use crate::teaching::lesson::session::{Entered, Session};
use crate::teaching::lesson::{bundled, export, Lesson, LessonOptions};
use crate::window::ui::lesson::LessonAction;
use crate::window::ui::lesson::LessonPanel as Shown;
use crate::window::ui::sweep::SweepAction;

/// The lessons panel's state in the frame loop.
#[derive(Default)]
pub(super) struct LessonPanel {
    /// The lesson being followed.
    pub session: Option<Session>,
    /// The lesson `--lesson FILE` loaded (not a bundled one), listed after
    /// the bundled ones.
    file: Option<Lesson>,
    /// Where the lesson chart was drawn in the last overlay pass, points.
    pub chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The lesson page last mirrored to the browser page ([`LessonPanel::refresh`]).
    spoken: String,
    /// The presenter view of the lesson's steps.
    presenter: Presenter,
}

/// What the lessons panel reads of the window.
pub(super) struct LessonContext {
    /// The budgets a step's settings go through.
    pub budget: Budget,
    /// The purpose of the quiet measurement running or waiting, if any.
    pub measuring: Option<Purpose>,
    /// The purpose of the quiet measurement running (not waiting), if any.
    pub running: Option<Purpose>,
}

impl LessonPanel {
    /// No lesson followed yet; `lesson` (the one `--lesson` opens) is listed
    /// after the bundled ones unless it is one of them (a file of a bundled
    /// lesson's name is listed).
    pub fn with_file(lesson: Option<Lesson>) -> Self {
        LessonPanel {
            file: lesson.filter(|l| !bundled::is_bundled(l)),
            ..LessonPanel::default()
        }
    }

    /// The lessons for the panel's list, into `shown`: the bundled ones,
    /// then the one loaded from a file (`--lesson FILE`), if any.
    pub fn list(&self, shown: &mut Shown) {
        match bundled::all() {
            Ok(all) => {
                shown.lessons = all
                    .into_iter()
                    .chain(self.file.clone())
                    .map(|l| (l.name, l.title, l.steps.len()))
                    .collect();
            }
            Err(e) => shown.error = Some(e.to_string()),
        }
    }

    /// Carries out one of the panel's requests (or its keys'); `shown`
    /// gets the line saying a lesson cannot be loaded.
    pub fn action(
        &mut self,
        a: LessonAction,
        cx: &LessonContext,
        shown: &mut Shown,
        out: &mut Requests,
    ) {
        let budget = cx.budget;
        let entered = match (a, self.session.as_mut()) {
            (LessonAction::Open(i), _) => {
                self.open(i, cx, shown, out);
                None
            }
            (LessonAction::Guess(g), Some(s)) => {
                s.guess(s.step(), Guess::Number(g));
                None
            }
            (LessonAction::Reveal, Some(s)) => {
                s.guess(s.step(), Guess::Skipped);
                None
            }
            (LessonAction::Next, Some(s)) => s.go(1, &budget),
            (LessonAction::Back, Some(s)) => s.go(-1, &budget),
            (LessonAction::Restart, Some(s)) => {
                // A restart asks every question again.
                s.forget_guesses();
                let e = s.enter(0, &budget);
                self.measure(cx, out);
                e
            }
            (LessonAction::Measure, Some(_)) => {
                self.measure(cx, out);
                None
            }
            (LessonAction::Restore, Some(s)) => s.enter(s.step(), &budget),
            (LessonAction::Cancel, Some(_)) => {
                out.push(Request::CancelQuiet);
                None
            }
            (LessonAction::List, _) => {
                self.stop(cx, out);
                self.session = None;
                None
            }
            (LessonAction::CopyMarkdown, Some(s)) => {
                out.push(Request::Copy {
                    text: export::to_markdown(s.run(), Machine::current()),
                    what: "the lesson as Markdown".to_string(),
                    tail: String::new(),
                });
                None
            }
            (LessonAction::SaveCsv, Some(s)) => {
                out.push(Request::SaveText {
                    stem: "spatial-query-lab-lesson",
                    ext: "csv",
                    text: Ok(export::to_csv(s.run())),
                });
                None
            }
            (LessonAction::SaveJson, Some(s)) => {
                out.push(Request::SaveText {
                    stem: "spatial-query-lab-lesson",
                    ext: "json",
                    text: export::to_json(s.run()),
                });
                None
            }
            (LessonAction::SaveChart, Some(s)) => {
                let chart = s
                    .run()
                    .chart(Machine::current(), crate::teaching::chart::Scale::Auto);
                out.push(Request::SaveChart(Box::new(ChartRequest {
                    chart,
                    rect: self.chart_rect,
                    which: "lesson",
                })));
                None
            }
            (_, None) => None,
        };
        enter(entered, out);
    }

    /// Starts lesson `i` of the panel's list at its first step, or says in
    /// `shown` that it cannot be loaded.
    fn open(&mut self, i: usize, cx: &LessonContext, shown: &mut Shown, out: &mut Requests) {
        let bundled_count = bundled::names().count();
        let lesson: Option<Lesson> = if i < bundled_count {
            bundled::names()
                .nth(i)
                .and_then(bundled::get)
                .and_then(Result::ok)
        } else {
            self.file.clone()
        };
        match lesson {
            Some(l) => self.start_at(l, 0, cx, out),
            None => shown.error = Some(format!("lesson {} cannot be loaded", i + 1)),
        }
    }

    /// Starts `lesson` at step `k` (0-based; its step count is the summary
    /// page), opens the panel and measures it. Only step `k`'s notes are
    /// presented, even when the same step of the same lesson was the last
    /// one shown.
    pub fn start_at(&mut self, lesson: Lesson, k: usize, cx: &LessonContext, out: &mut Requests) {
        self.stop(cx, out);
        self.session = Some(Session::new(lesson, LessonOptions::default()));
        self.presenter.forget();
        out.push(Request::ShowLessons);
        self.go_to(k, cx, out);
        self.measure(cx, out);
    }

    /// Shows step `k` of the lesson followed (clamped; its step count is
    /// the summary page).
    fn go_to(&mut self, k: usize, cx: &LessonContext, out: &mut Requests) {
        let budget = cx.budget;
        let entered = self.session.as_mut().and_then(|s| {
            // The summary page keeps the last step's settings: it is
            // entered through that step, as Page Down reaches it.
            let last = s.run().len() - 1;
            let through = (k > last).then(|| s.enter(last, &budget)).flatten();
            s.enter(k, &budget).or(through)
        });
        enter(entered, out);
        out.push(Request::RefreshLesson);
    }

    /// Measures the whole lesson quietly (every step, interleaved rounds),
    /// unless a measurement runs or waits (then says so).
    fn measure(&mut self, cx: &LessonContext, out: &mut Requests) {
        if cx.measuring.is_some() {
            out.toast("A measurement is running: wait for it or cancel it.");
            return;
        }
        let Some(tasks) = self.session.as_mut().map(Session::tasks) else {
            return;
        };
        out.push(Request::Measure {
            tasks,
            purpose: Purpose::Lesson,
        });
    }

    /// Ends the lesson's measurement, if it runs.
    fn stop(&mut self, cx: &LessonContext, out: &mut Requests) {
        if cx.running == Some(Purpose::Lesson) {
            out.push(Request::CancelQuiet);
        }
    }

    /// Takes back the lesson's measured `tasks` (`stopped`: why it ended
    /// early, if it did); the step shown is entered again through the
    /// guards of `budget` for its sweep.
    pub fn finish_measure(
        &mut self,
        tasks: &[Task],
        stopped: Option<String>,
        budget: &Budget,
        out: &mut Requests,
    ) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.finish(tasks);
        let message = match &stopped {
            Some(why) => format!("Lesson measurement {why}; its numbers stay pending."),
            None => "Lesson measured: every step's numbers are in.".to_string(),
        };
        // The step shown gets its sweep (for the sweep window) now; the
        // scene keeps what runs (flags given with the lesson, changes made
        // while it measured).
        let sweep = s.enter(s.step(), budget).and_then(|e| e.sweep);
        if let Some(sw) = sweep {
            out.push(Request::ShowSweep(Box::new(sw)));
        }
        out.toast(message);
        out.push(Request::RefreshLesson);
    }

    /// The panel's page from the session, into `shown`, with `live` the
    /// settings running now and `measuring` the lesson's measurement's
    /// progress and what it measures; mirrored to the browser page, and
    /// presented to the presenter view once per step.
    pub fn refresh(
        &mut self,
        live: &Settings,
        measuring: Option<(f64, String)>,
        shown: &mut Shown,
    ) {
        shown.page = self.session.as_ref().map(|s| s.page(live, measuring));
        if crate::platform::browser::IN_BROWSER {
            let spoken = shown
                .page
                .as_ref()
                .map(|p| p.plain_text())
                .unwrap_or_default();
            if spoken != self.spoken {
                crate::platform::browser::page_text(&spoken);
                self.spoken = spoken;
            }
        }
        self.presenter
            .present(shown.page.as_ref(), self.session.as_ref(), false);
    }

    /// Opens the presenter view (the browser), or prints the shown step's
    /// notes again (the desktop), for the page `shown`; without a lesson,
    /// says to open one.
    pub fn open_presenter(&mut self, shown: &Shown, out: &mut Requests) {
        if self.session.is_none() {
            out.toast("Open a lesson first (F2): the presenter view follows its steps.");
            return;
        }
        self.presenter
            .open(shown.page.as_ref(), self.session.as_ref(), out);
    }

    /// The newest measurement of exactly the work of `s`
    /// ([`Settings::same_work`]) among the lesson's steps, for the headline.
    pub fn measured(&self, s: &Settings) -> Option<Measurement> {
        self.session.as_ref().and_then(|l| {
            let run = l.run();
            (0..run.len())
                .filter_map(|k| {
                    run.result(k)
                        .and_then(crate::teaching::lesson::StepResult::outcome)
                })
                .filter_map(|o| o.measured().cloned())
                .find(|m| m.settings.same_work(s))
        })
    }
}

/// Asks the window to apply a step's settings and view, when one was entered.
fn enter(entered: Option<Entered>, out: &mut Requests) {
    if let Some(e) = entered {
        out.push(Request::Enter(Box::new(e)));
    }
}

impl App {
    /// What the lessons panel reads of the window now.
    fn lesson_context(&self) -> LessonContext {
        LessonContext {
            budget: self.guards.budget,
            measuring: self.quiet.purpose(),
            running: self.quiet.running_purpose(),
        }
    }

    /// The lessons for the panel's list ([`LessonPanel::list`]).
    pub(super) fn list_lessons(&mut self) {
        self.lessons.list(&mut self.stats.lessons);
    }

    /// Carries out one of the lessons panel's requests (or its keys').
    pub(super) fn lesson_action(&mut self, a: LessonAction) {
        let cx = self.lesson_context();
        let mut out = Requests::default();
        self.lessons
            .action(a, &cx, &mut self.stats.lessons, &mut out);
        self.carry_out(out);
        self.refresh_lesson();
    }

    /// Starts `lesson` at step `k` ([`LessonPanel::start_at`]).
    pub(super) fn start_lesson_at(&mut self, lesson: Lesson, k: usize) {
        let cx = self.lesson_context();
        let mut out = Requests::default();
        self.lessons.start_at(lesson, k, &cx, &mut out);
        self.carry_out(out);
    }

    /// Takes back the lesson's measurement ([`LessonPanel::finish_measure`]).
    pub(super) fn finish_lesson_measure(&mut self, tasks: &[Task], stopped: Option<String>) {
        let mut out = Requests::default();
        let budget = self.guards.budget;
        self.lessons
            .finish_measure(tasks, stopped, &budget, &mut out);
        self.carry_out(out);
    }

    /// Applies a lesson step's settings and view (and its finished sweep to
    /// the sweep window); a running cell-size sweep closes first.
    pub(super) fn enter_step(&mut self, e: Entered) {
        if self.sweep.is_running() {
            self.sweep_action(SweepAction::Close);
        }
        super::changes::apply_view(&e.view, &mut self.view);
        self.view.show_memory |= e.memory_view;
        self.add_notices(e.notices);
        self.settings = e.settings;
        if let Some(sw) = e.sweep {
            self.show_step_sweep(sw);
        }
    }

    /// Puts a lesson step's finished sweep in the sweep window.
    pub(super) fn show_step_sweep(&mut self, sw: CellSweep) {
        self.sweep.show_finished(sw);
        self.stats.sweep.clone_from(&self.sweep.run);
    }

    /// The panel's page from the session ([`LessonPanel::refresh`]).
    pub(super) fn refresh_lesson(&mut self) {
        let measuring = self
            .stats
            .quiet
            .as_ref()
            .filter(|q| q.lesson)
            .map(|q| (q.progress, q.what.clone()));
        self.lessons
            .refresh(&self.settings, measuring, &mut self.stats.lessons);
    }

    /// Opens the presenter view, or prints the step's notes (F3, the share
    /// menu's "Presenter").
    pub(super) fn open_presenter(&mut self) {
        let mut out = Requests::default();
        self.lessons.open_presenter(&self.stats.lessons, &mut out);
        self.carry_out(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_a_lesson_applies_its_first_step_then_measures_it() {
        let idle = LessonContext {
            budget: Budget::default(),
            measuring: None,
            running: None,
        };
        let mut panel = LessonPanel::default();
        let mut shown = Shown::default();
        let mut out = Requests::default();
        panel.action(LessonAction::Open(0), &idle, &mut shown, &mut out);
        assert!(panel.session.is_some());
        assert!(matches!(
            out.as_slice(),
            [
                Request::ShowLessons,
                Request::Enter(_),
                Request::RefreshLesson,
                Request::Measure {
                    purpose: Purpose::Lesson,
                    ..
                }
            ]
        ));
        // The lesson's own measurement running is cancelled; another one
        // keeps the machine, and the lesson says so instead of measuring.
        let busy = LessonContext {
            measuring: Some(Purpose::Lesson),
            running: Some(Purpose::Lesson),
            ..idle
        };
        let mut out = Requests::default();
        panel.action(LessonAction::Open(0), &busy, &mut shown, &mut out);
        assert!(matches!(
            out.as_slice(),
            [
                Request::CancelQuiet,
                Request::ShowLessons,
                Request::Enter(_),
                Request::RefreshLesson,
                Request::Toast(_)
            ]
        ));
        let mut out = Requests::default();
        panel.action(LessonAction::List, &busy, &mut shown, &mut out);
        assert!(panel.session.is_none());
        assert!(matches!(out.as_slice(), [Request::CancelQuiet]));
        assert_eq!(shown.error, None);
    }
}
