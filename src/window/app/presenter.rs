//! The lesson's presenter side: each step's notes (with its question and
//! the next step's title) printed where the window was started, and in the
//! browser the state of the presenter view (`web/presenter.html`, a second
//! window kept in step over a `BroadcastChannel`).

use std::io::Write as _;

use super::App;

impl App {
    /// Opens the presenter view (the browser), or prints the shown step's
    /// notes again (the desktop).
    pub(super) fn open_presenter(&mut self) {
        if self.lessons.session.is_none() {
            self.toast(
                "Open a lesson first (F2): the presenter view follows its steps.".to_string(),
            );
            return;
        }
        if crate::platform::browser::presenter_open() {
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
            if self.lessons.presented.take().is_some() && crate::platform::browser::IN_BROWSER {
                crate::platform::browser::presenter_state(&presenter_closed_json());
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
            .filter(|_| crate::platform::browser::IN_BROWSER);
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
        if crate::platform::browser::IN_BROWSER {
            crate::platform::browser::presenter_state(&presenter_json(page, &heading));
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
fn presenter_json(page: &crate::teaching::lesson::session::LessonPage, heading: &str) -> String {
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
