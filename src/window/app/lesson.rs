//! The lessons panel's side of the frame loop: a [`Session`] whose steps'
//! settings and view are applied to the scene, measured as a whole by a
//! quiet measurement ([`super::quiet`]) when the lesson opens or "Measure
//! again" is pressed, and the exports.

use super::quiet::Purpose;
use super::App;
use crate::measure::machine::Machine;
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::teaching::lesson::predict::Guess;
use crate::teaching::lesson::session::{Entered, Session};
use crate::teaching::lesson::{bundled, export, Lesson, LessonOptions};
use crate::window::ui::lesson::LessonAction;
use crate::window::ui::sweep::SweepAction;

/// The lessons panel's state in the frame loop.
#[derive(Default)]
pub(super) struct LessonPanel {
    /// The lesson being followed.
    pub session: Option<Session>,
    /// The lesson `--lesson FILE` loaded (not a bundled one), listed after
    /// the bundled ones.
    pub file: Option<Lesson>,
    /// Where the lesson chart was drawn in the last overlay pass, points.
    pub chart_rect: Option<egui_macroquad::egui::Rect>,
    /// The lesson page last mirrored to the browser page (`refresh_lesson`).
    pub spoken: String,
    /// The lesson, step and (in the browser) revealed answer last
    /// presented ([`App::present_step`]).
    pub presented: Option<(String, usize, Option<String>)>,
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
}

impl App {
    /// The lessons for the panel's list: the bundled ones, then the one
    /// loaded from a file (`--lesson FILE`), if any.
    pub(super) fn list_lessons(&mut self) {
        match bundled::all() {
            Ok(all) => {
                self.stats.lessons.lessons = all
                    .into_iter()
                    .chain(self.lessons.file.clone())
                    .map(|l| (l.name, l.title, l.steps.len()))
                    .collect();
            }
            Err(e) => self.stats.lessons.error = Some(e.to_string()),
        }
    }

    /// Carries out one of the lessons panel's requests (or its keys').
    pub(super) fn lesson_action(&mut self, a: LessonAction) {
        {
            let budget = self.budget;
            let entered = match (a, self.lessons.session.as_mut()) {
                (LessonAction::Open(i), _) => {
                    self.open_lesson(i);
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
                    self.measure_lesson();
                    e
                }
                (LessonAction::Measure, Some(_)) => {
                    self.measure_lesson();
                    None
                }
                (LessonAction::Restore, Some(s)) => s.enter(s.step(), &budget),
                (LessonAction::Cancel, Some(_)) => {
                    self.cancel_quiet();
                    None
                }
                (LessonAction::List, _) => {
                    self.stop_lesson();
                    self.lessons.session = None;
                    None
                }
                (LessonAction::CopyMarkdown, Some(s)) => {
                    let md = export::to_markdown(s.run(), Machine::current());
                    let said = self.copy_text(md, "the lesson as Markdown");
                    self.toast(said);
                    None
                }
                (LessonAction::SaveCsv, Some(s)) => {
                    let text = Ok(export::to_csv(s.run()));
                    self.save_text("spatial-query-lab-lesson", "csv", text);
                    None
                }
                (LessonAction::SaveJson, Some(s)) => {
                    let text = export::to_json(s.run());
                    self.save_text("spatial-query-lab-lesson", "json", text);
                    None
                }
                (LessonAction::SaveChart, Some(s)) => {
                    let chart = s
                        .run()
                        .chart(Machine::current(), crate::teaching::chart::Scale::Auto);
                    self.save_chart(&chart, self.lessons.chart_rect, "lesson");
                    None
                }
                (_, None) => None,
            };
            self.apply_entered(entered);
        }
        self.refresh_lesson();
    }

    /// Starts lesson `i` of the panel's list at its first step.
    fn open_lesson(&mut self, i: usize) {
        let bundled_count = bundled::names().count();
        let lesson: Option<Lesson> = if i < bundled_count {
            bundled::names()
                .nth(i)
                .and_then(bundled::get)
                .and_then(Result::ok)
        } else {
            self.lessons.file.clone()
        };
        match lesson {
            Some(l) => self.start_lesson(l),
            None => self.stats.lessons.error = Some(format!("lesson {} cannot be loaded", i + 1)),
        }
    }

    /// Starts `lesson` at its first step, opens the panel and measures it.
    pub(super) fn start_lesson(&mut self, lesson: Lesson) {
        self.start_lesson_at(lesson, 0);
    }

    /// Starts `lesson` at step `k` (0-based; its step count is the summary
    /// page), opens the panel and measures it. Only step `k`'s notes are
    /// presented, even when the same step of the same lesson was the last
    /// one shown.
    pub(super) fn start_lesson_at(&mut self, lesson: Lesson, k: usize) {
        self.stop_lesson();
        self.lessons.session = Some(Session::new(lesson, LessonOptions::default()));
        self.lessons.presented = None;
        self.view.show_lessons = true;
        self.lesson_go_to(k);
        self.measure_lesson();
    }

    /// Shows step `k` of the lesson followed (clamped; its step count is
    /// the summary page).
    fn lesson_go_to(&mut self, k: usize) {
        let budget = self.budget;
        let entered = self.lessons.session.as_mut().and_then(|s| {
            // The summary page keeps the last step's settings: it is
            // entered through that step, as Page Down reaches it.
            let last = s.run().len() - 1;
            let through = (k > last).then(|| s.enter(last, &budget)).flatten();
            s.enter(k, &budget).or(through)
        });
        self.apply_entered(entered);
        self.refresh_lesson();
    }

    /// Measures the whole lesson quietly (every step, interleaved rounds).
    fn measure_lesson(&mut self) {
        if self.quiet_purpose().is_some() {
            self.toast("A measurement is running: wait for it or cancel it.".to_string());
            return;
        }
        let Some(tasks) = self.lessons.session.as_mut().map(Session::tasks) else {
            return;
        };
        self.start_quiet(tasks, Purpose::Lesson);
    }

    /// Ends the lesson's measurement, if it runs.
    fn stop_lesson(&mut self) {
        if self
            .quiet
            .as_ref()
            .is_some_and(|q| q.purpose == Purpose::Lesson)
        {
            self.cancel_quiet();
        }
    }

    /// Takes back the lesson's measured `tasks` (`stopped`: why it ended
    /// early, if it did).
    pub(super) fn finish_lesson_measure(&mut self, tasks: &[Task], stopped: Option<String>) {
        let budget = self.budget;
        let Some(s) = self.lessons.session.as_mut() else {
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
        let sweep = s.enter(s.step(), &budget).and_then(|e| e.sweep);
        if let Some(sw) = sweep {
            self.show_step_sweep(sw);
        }
        self.toast(message);
        self.refresh_lesson();
    }

    /// Applies a step's settings and view (and its finished sweep to the
    /// sweep window).
    fn apply_entered(&mut self, e: Option<Entered>) {
        let Some(e) = e else { return };
        if self.sweep.run.as_ref().is_some_and(|sw| !sw.is_done()) {
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
    fn show_step_sweep(&mut self, sw: CellSweep) {
        self.sweep.run = Some(sw);
        self.sweep.kept = true;
        self.stats.sweep.clone_from(&self.sweep.run);
    }

    /// The panel's page from the session.
    pub(super) fn refresh_lesson(&mut self) {
        let measuring = self
            .stats
            .quiet
            .as_ref()
            .filter(|q| q.lesson)
            .map(|q| (q.progress, q.what.clone()));
        self.stats.lessons.page = self
            .lessons
            .session
            .as_ref()
            .map(|s| s.page(&self.settings, measuring));
        if crate::platform::browser::IN_BROWSER {
            let spoken = self
                .stats
                .lessons
                .page
                .as_ref()
                .map(|p| p.plain_text())
                .unwrap_or_default();
            if spoken != self.lessons.spoken {
                crate::platform::browser::page_text(&spoken);
                self.lessons.spoken = spoken;
            }
        }
        self.present_step();
    }
}
