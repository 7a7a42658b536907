//! The pictures the user asks for during a frame (F12's screenshot, the
//! browser's chart region), kept in one queue and saved once the frame is
//! drawn, and `--screenshot`'s picture after the last frame.

use std::path::{Path, PathBuf};

use super::{files, App};
use crate::window::render::save_screenshot;

/// A picture to save once this frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Export {
    /// The whole window as a PNG (F12).
    Window,
    /// The pixels of a panel's chart as a PNG (the browser's Save chart,
    /// where the chart cannot be drawn offscreen): the region in pixels
    /// (left, top, width, height) and the panel's name for the message.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    Region([u32; 4], &'static str),
}

/// The frame loop's exports: the queue of pictures asked for this frame and
/// `--screenshot`'s file.
pub(super) struct Exports {
    /// Saved in the order asked, after the frame is drawn.
    queue: Vec<Export>,
    /// `--screenshot`'s file, written after the last frame.
    pub screenshot: Option<PathBuf>,
}

impl Exports {
    /// An empty queue; `screenshot` is written after the last frame.
    pub fn new(screenshot: Option<PathBuf>) -> Self {
        Exports {
            queue: Vec::new(),
            screenshot,
        }
    }

    /// Saves `export` once this frame is drawn.
    pub fn request(&mut self, export: Export) {
        self.queue.push(export);
    }
}

impl App {
    /// Saves the pictures asked for this frame, each with its toast. Runs
    /// after drawing: WebGL clears the drawing buffer once a frame is
    /// shown, so a read while handling input is black.
    pub(super) fn deliver_exports(&mut self) {
        for export in std::mem::take(&mut self.exports.queue) {
            let message = match export {
                Export::Window => {
                    let saved = match self.scene.cannot_draw() {
                        Some(why) => Err(format!("the picture is not drawn: {why}")),
                        None => crate::window::render::screenshot_png(self.view.show_overlay),
                    };
                    match saved.and_then(|png| files::deliver("spatial-query-lab", "png", &png)) {
                        Ok(to) => format!("Screenshot saved: {to}"),
                        Err(e) => format!("Screenshot not saved: {e}"),
                    }
                }
                Export::Region(px, which) => match crate::window::render::region_png(px)
                    .and_then(|png| files::deliver("spatial-query-lab-chart", "png", &png))
                {
                    Ok(to) => format!("Chart saved: {to}"),
                    Err(e) => format!("Chart of the {which} panel not saved: {e}"),
                },
            };
            self.toast(message);
        }
    }

    /// After the last frame: writes `--screenshot`'s PNG, if asked, and
    /// says so; returns the exit code (1 after printing why the picture
    /// could not be written).
    pub(super) fn write_screenshot(&self) -> i32 {
        let Some(path) = &self.exports.screenshot else {
            return 0;
        };
        if let Err(e) = self.save_picture(path) {
            eprintln!("error: --screenshot: {e}");
            return 1;
        }
        println!(
            "wrote {} after {} frames (slowest refresh {:.0} ms)",
            path.display(),
            self.frame,
            self.stats.slowest_s.unwrap_or(0.0) * 1e3
        );
        0
    }

    /// Writes the window to the PNG at `path` ([`save_screenshot`]), or
    /// refuses in one line when the picture cannot hold the units (no
    /// offscreen target) or came back one color with the overlay shown.
    fn save_picture(&self, path: &Path) -> Result<(), String> {
        if let Some(why) = self.scene.cannot_draw() {
            return Err(format!("cannot save screenshot {}: {why}", path.display()));
        }
        save_screenshot(path, self.view.show_overlay)
    }
}
