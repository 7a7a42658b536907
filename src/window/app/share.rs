//! The lab's state leaving the window: "Copy link" and "Copy command
//! line" ([`crate::settings::link`]: the settings that differ from the
//! defaults, or from the lesson step's, after the lesson and step).
//!
//! [`Share`] owns what the links start from; its methods read a
//! [`ShareContext`] and ask for the clipboard through [`Requests`].

use super::requests::{Request, Requests};
use super::App;
use crate::engine::sim::Settings;
use crate::settings::link::{self, Param, Place};
use crate::settings::scenario::ScenarioView;
use crate::teaching::lesson::session::Session;
use crate::window::ui::ViewOptions;

/// The view values of `v` as a scenario's, every one set.
pub(super) fn view_values(v: &ViewOptions) -> ScenarioView {
    ScenarioView::from(v.settings)
}

/// The share menu's state: what "Copy link" puts before the state.
pub(super) struct Share {
    /// What "Copy link" puts before the state's parameters on the desktop
    /// (`--link-base`); the browser uses its page's address.
    link_base: String,
}

/// What the share menu reads of the window: the state it shares.
pub(super) struct ShareContext<'a> {
    /// The settings running now.
    pub settings: &'a Settings,
    /// The view shown now.
    pub view: &'a ViewOptions,
    /// The lesson followed, if any.
    pub session: Option<&'a Session>,
}

/// The lesson followed in `session` and its step (1-based), if any; for a
/// lesson from a file, its file on the desktop (the browser has bundled
/// lessons only, by name).
fn place(session: Option<&Session>) -> Place {
    let Some(s) = session else {
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

/// The state of `cx` as flags: the place, then every setting and view
/// value that differs from what opening the place gives (the step's
/// applied settings and view in a lesson, else the defaults).
pub(super) fn share_params(cx: &ShareContext) -> Vec<Param> {
    let live_view = view_values(cx.view);
    let (base, base_view) = match cx.session {
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
        &place(cx.session),
        (cx.settings, &live_view),
        (&base, &base_view),
    )
}

impl Share {
    /// Links start from `link_base` on the desktop (`--link-base`).
    pub fn new(link_base: String) -> Self {
        Share { link_base }
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

    /// Asks for the state's link (F4) on the clipboard, with a toast
    /// (which says when the lesson is a file the browser build cannot open).
    pub fn copy_link(&self, cx: &ShareContext, out: &mut Requests) {
        let url = link::link(&self.link_base(), &share_params(cx));
        let file = cx
            .session
            .is_some_and(|s| !crate::teaching::lesson::bundled::is_bundled(s.run().lesson()));
        let note = if file {
            " (the lesson is a file: the browser build opens bundled lessons only, so the link names it for a lab on this computer; Copy command line suits it better)"
        } else {
            ""
        };
        out.push(Request::Copy {
            text: url.clone(),
            what: "a link to this state".to_string(),
            tail: format!(" {url}{note}"),
        });
    }

    /// Asks for the state's command line on the clipboard, with a toast.
    pub fn copy_command_line(cx: &ShareContext, out: &mut Requests) {
        let line = link::command_line(&share_params(cx));
        out.push(Request::Copy {
            text: line.clone(),
            what: "the command line of this state".to_string(),
            tail: format!(" {line}"),
        });
    }
}

impl App {
    /// What the share menu reads of the window now.
    fn share_context(&self) -> ShareContext<'_> {
        ShareContext {
            settings: &self.settings,
            view: &self.view,
            session: self.lessons.session.as_ref(),
        }
    }

    /// The state's link on the clipboard ([`Share::copy_link`]).
    pub(super) fn copy_link(&mut self) {
        let mut out = Requests::default();
        self.share.copy_link(&self.share_context(), &mut out);
        self.carry_out(out);
    }

    /// The state's command line on the clipboard ([`Share::copy_command_line`]).
    pub(super) fn copy_command_line(&mut self) {
        let mut out = Requests::default();
        Share::copy_command_line(&self.share_context(), &mut out);
        self.carry_out(out);
    }
}
