//! What a panel asks of the rest of the window: the action sink every
//! panel's methods write to ([`Requests`]), carried out in the order asked
//! by [`App::carry_out`] once the panel returns.
//!
//! A panel owns its state and reads a narrow context (the settings, the
//! budget, whether a measurement runs); whatever reaches beyond it — a
//! toast, the clipboard, a file, a quiet measurement, a lesson step's
//! settings, another panel — is a [`Request`] here, as the overlay's
//! requests are [`crate::window::ui::OverlayAction`]s.

use egui_macroquad::egui::Rect;

use super::quiet::Purpose;
use super::{exports, App, STATUS_S};
use crate::measure::run::Task;
use crate::measure::sweep::CellSweep;
use crate::teaching::chart::Chart;
use crate::teaching::lesson::session::Entered;
use macroquad::prelude::get_time;

/// A chart to save, with where its panel drew it (for the browser, which
/// saves the panel's pixels instead).
pub(super) struct ChartRequest {
    /// The chart, drawn offscreen as PNG and SVG on the desktop.
    pub chart: Chart,
    /// Where the panel's plot was drawn in the last overlay pass, points.
    pub rect: Option<Rect>,
    /// The panel's name, for the messages ("compare", "lesson", "sweep").
    pub which: &'static str,
}

/// One thing a panel asks the frame loop to do.
pub(super) enum Request {
    /// Show a message at the bottom of the window for a few seconds.
    Toast(String),
    /// Put `text` on the clipboard, then toast what was copied (`what`,
    /// "Copied {what} to the clipboard.") followed by `tail`.
    Copy {
        /// The text copied.
        text: String,
        /// What it is, for the toast.
        what: String,
        /// Put after the toast's sentence (empty, or " " and the text).
        tail: String,
    },
    /// Save `text` (or say why there is none) as the next free
    /// `{stem}-NNN.{ext}`, or as a browser download, with a toast.
    SaveText {
        /// The file name's stem.
        stem: &'static str,
        /// The file name's extension.
        ext: &'static str,
        /// The text, or why there is none.
        text: Result<String, String>,
    },
    /// Save a chart ([`super::exports::Exports::save_chart`]), with a toast.
    SaveChart(Box<ChartRequest>),
    /// Start a quiet measurement of `tasks` for `purpose` (refused with a
    /// toast while one runs or waits, or while the cell-size sweep runs).
    Measure {
        /// What to measure.
        tasks: Vec<Task>,
        /// Who asked, and what becomes of the result.
        purpose: Purpose,
    },
    /// Cancel the quiet measurement running or waiting.
    CancelQuiet,
    /// Open the compare panel.
    ShowCompare,
    /// Open the lessons panel.
    ShowLessons,
    /// Apply a lesson step's settings and view ([`App::enter_step`]).
    Enter(Box<Entered>),
    /// Put a lesson step's finished sweep in the sweep window.
    ShowSweep(Box<CellSweep>),
    /// Set the cell size, world units, and stop it following the radius.
    CellSize(f32),
    /// Build the lessons panel's page again (and present its step).
    RefreshLesson,
}

/// The requests a panel made, in the order made.
#[derive(Default)]
pub(super) struct Requests(Vec<Request>);

impl Requests {
    /// Adds `request` after the others.
    pub fn push(&mut self, request: Request) {
        self.0.push(request);
    }

    /// Asks for a toast of `message`.
    pub fn toast(&mut self, message: impl Into<String>) {
        self.push(Request::Toast(message.into()));
    }

    /// The requests, in the order made.
    #[cfg(test)]
    pub fn as_slice(&self) -> &[Request] {
        &self.0
    }
}

impl App {
    /// Shows `message` at the bottom of the window for a few seconds.
    pub(super) fn toast(&mut self, message: String) {
        self.stats.status = Some((message, get_time() + STATUS_S));
    }

    /// Carries out a panel's `requests`, in the order made.
    pub(super) fn carry_out(&mut self, requests: Requests) {
        for request in requests.0 {
            match request {
                Request::Toast(message) => self.toast(message),
                Request::Copy { text, what, tail } => {
                    let said = exports::copy_text(self.ui.egui.ctx(), text, &what);
                    self.toast(format!("{said}{tail}"));
                }
                Request::SaveText { stem, ext, text } => {
                    let message = exports::save_text(stem, ext, text);
                    self.toast(message);
                }
                Request::SaveChart(c) => {
                    let scale = self.ui.egui.ctx().pixels_per_point();
                    if let Some(message) = self.exports.save_chart(&c.chart, c.rect, c.which, scale)
                    {
                        self.toast(message);
                    }
                }
                Request::Measure { tasks, purpose } => {
                    self.start_quiet(tasks, purpose);
                }
                Request::CancelQuiet => self.cancel_quiet(),
                Request::ShowCompare => self.view.show_compare = true,
                Request::ShowLessons => self.view.show_lessons = true,
                Request::Enter(e) => self.enter_step(*e),
                Request::ShowSweep(sw) => self.show_step_sweep(*sw),
                Request::CellSize(cell) => {
                    self.settings.cell_size = cell;
                    self.settings.cell_follows_radius = false;
                }
                Request::RefreshLesson => self.refresh_lesson(),
            }
        }
    }
}
