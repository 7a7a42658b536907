//! The lab's state leaving the window: "Copy link" and "Copy command
//! line" ([`crate::settings::link`]: the settings that differ from the
//! defaults, or from the lesson step's, after the lesson and step).

use super::App;
use crate::engine::sim::Settings;
use crate::settings::link::{self, Param, Place};
use crate::settings::scenario::ScenarioView;
use crate::window::ui::ViewOptions;

/// The view values of `v` as a scenario's, every one set.
pub(super) fn view_values(v: &ViewOptions) -> ScenarioView {
    ScenarioView::from(v.settings)
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
        let bundled = crate::teaching::lesson::bundled::is_bundled(lesson);
        Place {
            lesson: Some(if bundled || crate::platform::browser::IN_BROWSER {
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
            .is_some_and(|s| !crate::teaching::lesson::bundled::is_bundled(s.run().lesson()));
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
}
