//! The lab's state leaving the window: "Copy link" and "Copy command
//! line" ([`crate::scenario::link`]: the settings that differ from the
//! defaults, or from the lesson step's, after the lesson and step), and the
//! lesson's presenter side: each step's notes printed where the window was
//! started, and in the browser the presenter view's state.

use std::io::Write as _;

use super::App;
use crate::scenario::link::{self, Param, Place};
use crate::scenario::ScenarioView;
use crate::sim::Settings;
use crate::ui::ViewOptions;

/// The view values of `v` as a scenario's, every one set.
pub(super) fn view_values(v: &ViewOptions) -> ScenarioView {
    ScenarioView {
        color: Some(v.color_mode),
        vertex_layout: Some(v.vertex_layout),
        normal_bits: Some(v.normal_precision),
        mesh: Some(v.unit_mesh),
        heatmap: Some(v.cell_occupancy),
        cache_model: Some(v.cache_model),
    }
}

impl App {
    /// The lesson followed and its step (1-based), if any; for a lesson
    /// from a file, its file on the desktop (the browser has bundled
    /// lessons only, by name).
    fn place(&self) -> Place {
        let Some(s) = &self.lessons.session else {
            return Place::default();
        };
        let lesson = s.run().lesson();
        let bundled = crate::lesson::bundled::is_bundled(lesson);
        Place {
            lesson: Some(if bundled || crate::browser::IN_BROWSER {
                lesson.name.clone()
            } else {
                lesson.file.clone()
            }),
            step: Some(s.step() + 1),
        }
    }

    /// The state as flags: the place, then every setting and view value
    /// that differs from what opening the place gives (the step's applied
    /// settings and view in a lesson, else the defaults).
    pub(super) fn share_params(&self) -> Vec<Param> {
        let live_view = view_values(&self.view);
        let (base, base_view) = match &self.lessons.session {
            Some(s) => {
                // Opening the link gives the step's settings and the
                // default view with the step's over it (the summary page:
                // the last step's, which it is entered through).
                let k = s.step().min(s.run().len() - 1);
                let step_view = s.run().view(k);
                let v = view_values(&ViewOptions::default()).overlay(&step_view);
                (s.applied().clone(), v)
            }
            _ => (Settings::default(), view_values(&ViewOptions::default())),
        };
        link::params(
            &self.place(),
            (&self.settings, &live_view),
            (&base, &base_view),
        )
    }

    /// The page the link starts from: the browser page's own address, or
    /// `--link-base` on the desktop.
    fn link_base(&self) -> String {
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        {
            let _ = &self.link_base;
            quad_url::path(false)
        }
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        {
            self.link_base.clone()
        }
    }

    /// The state's link (F4), on the clipboard, with a toast (which says
    /// when the lesson is a file the browser build cannot open).
    pub(super) fn copy_link(&mut self) {
        let url = link::link(&self.link_base(), &self.share_params());
        let said = self.copy_text(url.clone(), "a link to this state");
        let file = self
            .lessons
            .session
            .as_ref()
            .is_some_and(|s| !crate::lesson::bundled::is_bundled(s.run().lesson()));
        let note = if file {
            " (the lesson is a file: the browser build opens bundled lessons only, so the link names it for a lab on this computer; Copy command line suits it better)"
        } else {
            ""
        };
        self.toast(format!("{said} {url}{note}"));
    }

    /// The state's command line, on the clipboard, with a toast.
    pub(super) fn copy_command_line(&mut self) {
        let line = link::command_line(&self.share_params());
        let said = self.copy_text(line.clone(), "the command line of this state");
        self.toast(format!("{said} {line}"));
    }

    /// Opens the presenter view (the browser), or prints the shown step's
    /// notes again (the desktop).
    pub(super) fn open_presenter(&mut self) {
        if self.lessons.session.is_none() {
            self.toast(
                "Open a lesson first (F2): the presenter view follows its steps.".to_string(),
            );
            return;
        }
        if crate::browser::presenter_open() {
            self.toast("Presenter view opened in a second window (the page says so if the browser blocks it).".to_string());
        } else {
            self.toast(
                "The step's notes are printed in the terminal the window was started from."
                    .to_string(),
            );
        }
        self.present(true);
    }

    /// [`App::present`] once per step shown.
    pub(super) fn present_step(&mut self) {
        self.present(false);
    }

    /// Prints the shown step's presenter notes where the window was
    /// started (stdout), and hands the presenter view its state in the
    /// browser; on the desktop nothing for a lesson without notes unless
    /// `again`.
    /// `again`: also when this step was presented already.
    fn present(&mut self, again: bool) {
        let Some(page) = &self.stats.lessons.page else {
            // The lesson closed: the presenter view stops showing it.
            if self.lessons.presented.take().is_some() && crate::browser::IN_BROWSER {
                crate::browser::presenter_state(&presenter_closed_json());
            }
            return;
        };
        // The browser's presenter view shows the answer once revealed, so
        // a reveal (or its measurement arriving) presents the step again
        // there; the terminal prints each step once.
        let reveal = page
            .predict
            .as_ref()
            .and_then(|q| q.reveal.clone())
            .filter(|_| crate::browser::IN_BROWSER);
        let key = (page.title.clone(), page.step, reveal);
        if !again && self.lessons.presented.as_ref() == Some(&key) {
            return;
        }
        self.lessons.presented = Some(key);
        let heading = if page.step < page.steps {
            format!(
                "step {} of {}: {}",
                page.step + 1,
                page.steps,
                page.step_title
            )
        } else {
            "summary".to_string()
        };
        if crate::browser::IN_BROWSER {
            crate::browser::presenter_state(&presenter_json(page, &heading));
            return;
        }
        let has_notes = self
            .lessons
            .session
            .as_ref()
            .is_some_and(|s| s.run().lesson().steps.iter().any(|st| !st.notes.is_empty()));
        if !has_notes && !again {
            return;
        }
        let mut out = format!("\n== {} — {heading}\n", page.title);
        if let Some(q) = &page.predict {
            out += &format!("   predict: {}\n", q.question);
        }
        if !page.notes.is_empty() {
            // Every line of the notes under the first, indented alike.
            let notes = page.notes.trim().lines().collect::<Vec<_>>();
            out += &format!("   notes: {}\n", notes.join("\n          "));
        }
        if !page.next_title.is_empty() {
            out += &format!("   next: {}\n", page.next_title);
        }
        let _ = std::io::stdout().write_all(out.as_bytes());
        let _ = std::io::stdout().flush();
    }
}

/// The presenter view's state with no lesson open, as JSON.
fn presenter_closed_json() -> String {
    serde_json::json!({
        "lesson": "No lesson open",
        "heading": "Open a lesson in the lab (F2)",
        "notes": "The lab's page closed its lesson; the notes of the next one it opens show here.",
        "question": null,
        "next": "",
    })
    .to_string()
}

/// The presenter view's state as JSON: the lesson, the step's heading,
/// its notes, the question and (once revealed) its answer, the next
/// step's title.
fn presenter_json(page: &crate::lesson::session::LessonPage, heading: &str) -> String {
    serde_json::json!({
        "lesson": page.title,
        "step": page.step + 1,
        "steps": page.steps,
        "heading": heading,
        "notes": page.notes,
        "question": page.predict.as_ref().map(|q| q.question.clone()),
        "answer": page.predict.as_ref().and_then(|q| q.reveal.clone()),
        "next": page.next_title,
    })
    .to_string()
}
