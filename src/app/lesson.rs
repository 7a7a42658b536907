//! The lessons panel's side of the frame loop: a [`Session`] whose steps'
//! settings and view are applied here, measured through the measurement
//! engine on the live simulation (one step at a time while the window keeps
//! answering), and the exports.

use super::App;
use crate::lesson::session::{Entered, Session};
use crate::lesson::{bundled, export, Lesson, LessonOptions};
use crate::machine::Machine;
use crate::measure::FrameRecord;
use crate::sim::{memory, Settings};
use crate::ui::lesson::LessonAction;
use crate::ui::sweep::SweepAction;

impl App {
    /// The bundled lessons for the panel's list.
    pub(super) fn list_lessons(&mut self) {
        match bundled::all() {
            Ok(all) => {
                self.stats.lessons.lessons = all
                    .into_iter()
                    .map(|l| (l.name, l.title, l.steps.len()))
                    .collect();
            }
            Err(e) => self.stats.lessons.error = Some(e.to_string()),
        }
        self.stats.lessons.can_save = cfg!(not(target_arch = "wasm32"));
    }

    /// Carries out the lessons panel's requests (and its keys).
    pub(super) fn lesson_actions(&mut self, acts: Vec<LessonAction>) {
        for a in acts {
            let budget = self.budget;
            let entered = match (a, self.lesson.as_mut()) {
                (LessonAction::Open(i), _) => {
                    self.open_lesson(i);
                    None
                }
                (LessonAction::Next, Some(s)) => s.go(1, &budget),
                (LessonAction::Back, Some(s)) => s.go(-1, &budget),
                (LessonAction::Restart, Some(s)) => s.restart(&budget),
                (LessonAction::Measure | LessonAction::Restore, Some(s)) => {
                    s.enter(s.step(), &budget, true)
                }
                (LessonAction::List, _) => {
                    self.stop_lesson();
                    self.lesson = None;
                    None
                }
                (LessonAction::CopyMarkdown, Some(s)) => {
                    let md = export::to_markdown(s.run(), Machine::current());
                    self.egui.ctx().copy_text(md);
                    self.toast("Copied the lesson as Markdown to the clipboard.".to_string());
                    None
                }
                (LessonAction::SaveCsv, Some(s)) => {
                    let text = Ok(s.run().comparison().to_csv());
                    self.save_text("spatial-query-lab-lesson", "csv", text);
                    None
                }
                (LessonAction::SaveJson, Some(s)) => {
                    let text = export::to_json(s.run());
                    self.save_text("spatial-query-lab-lesson", "json", text);
                    None
                }
                (LessonAction::SaveChart, _) => {
                    self.lesson_chart_requested = true;
                    None
                }
                (_, None) => None,
            };
            self.apply_entered(entered);
        }
        self.refresh_lesson();
    }

    /// Starts bundled lesson `i` at its first step.
    fn open_lesson(&mut self, i: usize) {
        let lesson: Option<Lesson> = bundled::names()
            .nth(i)
            .and_then(bundled::get)
            .and_then(Result::ok);
        match lesson {
            Some(l) => self.start_lesson(l),
            None => self.stats.lessons.error = Some(format!("lesson {} cannot be loaded", i + 1)),
        }
    }

    /// Starts `lesson` at its first step and opens the panel.
    pub(super) fn start_lesson(&mut self, lesson: Lesson) {
        self.stop_lesson();
        let mut s = Session::new(lesson, LessonOptions::default());
        let entered = s.enter(0, &self.budget, false);
        self.lesson = Some(s);
        self.view.show_lessons = true;
        self.apply_entered(entered);
    }

    /// Ends the lesson's measurement (closing its sweep).
    fn stop_lesson(&mut self) {
        if self.lesson.as_mut().is_some_and(Session::stop) {
            self.sweep_action(SweepAction::Close);
        }
    }

    /// Applies a step's settings and view.
    fn apply_entered(&mut self, e: Option<Entered>) {
        let Some(e) = e else { return };
        if self.sweep.as_ref().is_some_and(|sw| !sw.is_done()) {
            self.sweep_action(SweepAction::Close);
        }
        super::changes::apply_view(&e.view, &mut self.view);
        self.view.show_memory |= e.memory_view;
        self.add_notices(e.notices);
        self.settings = e.settings;
    }

    /// Hands a completed step (`frame`, made with `settings`) to the lesson,
    /// starting the step's sweep when it asks.
    pub(super) fn record_lesson(&mut self, frame: FrameRecord<'_>, settings: &Settings) {
        let Some(s) = self.lesson.as_mut() else {
            return;
        };
        let sim = &self.sim;
        if s.record(frame, settings, || memory::working_set(sim)) {
            self.sweep_action(SweepAction::Start);
            let started = self.sweep.is_some();
            if let Some(s) = self.lesson.as_mut() {
                s.sweep_started(started);
            }
        }
        if let Some(s) = self.lesson.as_mut() {
            s.sweep_update(self.sweep.as_ref());
        }
        self.refresh_lesson();
    }

    /// The panel's page from the session.
    pub(super) fn refresh_lesson(&mut self) {
        let progress = self.sweep.as_ref().map(|sw| f64::from(sw.progress()));
        self.stats.lessons.page = self
            .lesson
            .as_ref()
            .map(|s| s.page(&self.settings, progress));
    }
}
