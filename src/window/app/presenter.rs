//! The lesson's presenter side: each step's notes (with its question and
//! the next step's title) printed where the window was started, and in the
//! browser the state of the presenter view (`web/presenter.html`, a second
//! window kept in step over a `BroadcastChannel`).

use std::io::Write as _;

use super::requests::Requests;
use crate::teaching::lesson::session::{LessonPage, Session};

/// The lesson step last presented: its lesson's title, the step (0-based;
/// the lesson's step count is the summary page) and, in the browser, the
/// answer revealed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Presented {
    /// The lesson's title.
    lesson: String,
    /// The step, 0-based.
    step: usize,
    /// The predict question's answer, once revealed (the browser only:
    /// the terminal prints each step once).
    answer: Option<String>,
}

/// The presenter view of the lesson followed: which step it last
/// presented, so each step is presented once. The lessons panel owns it,
/// since it follows the panel's steps.
#[derive(Default)]
pub(super) struct Presenter {
    /// The step last presented, if any.
    presented: Option<Presented>,
}

impl Presenter {
    /// Forgets the step last presented: the next one is presented even
    /// when it is the same step of the same lesson.
    pub fn forget(&mut self) {
        self.presented = None;
    }

    /// Opens the presenter view (the browser), or prints the notes of the
    /// step `page` shows again (the desktop), saying which in a toast;
    /// `session` is the lesson followed.
    pub fn open(
        &mut self,
        page: Option<&LessonPage>,
        session: Option<&Session>,
        out: &mut Requests,
    ) {
        if crate::platform::browser::presenter_open() {
            out.toast("Presenter view opened in a second window (the page says so if the browser blocks it).");
        } else {
            out.toast("The step's notes are printed in the terminal the window was started from.");
        }
        self.present(page, session, true);
    }

    /// Prints the presenter notes of the step `page` shows where the
    /// window was started (stdout), and hands the presenter view its state
    /// in the browser; `session` is the lesson followed. On the desktop
    /// nothing for a lesson without notes unless `again`.
    /// `again`: also when this step was presented already.
    pub fn present(&mut self, page: Option<&LessonPage>, session: Option<&Session>, again: bool) {
        let Some(page) = page else {
            // The lesson closed: the presenter view stops showing it.
            if self.presented.take().is_some() && crate::platform::browser::IN_BROWSER {
                crate::platform::browser::presenter_state(&presenter_closed_json());
            }
            return;
        };
        // The browser's presenter view shows the answer once revealed, so
        // a reveal (or its measurement arriving) presents the step again
        // there; the terminal prints each step once.
        let answer = page
            .predict
            .as_ref()
            .and_then(|q| q.reveal.clone())
            .filter(|_| crate::platform::browser::IN_BROWSER);
        let key = Presented {
            lesson: page.title.clone(),
            step: page.step,
            answer,
        };
        if !again && self.presented.as_ref() == Some(&key) {
            return;
        }
        self.presented = Some(key);
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
        let has_notes =
            session.is_some_and(|s| s.run().lesson().steps.iter().any(|st| !st.notes.is_empty()));
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
fn presenter_json(page: &LessonPage, heading: &str) -> String {
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
