//! What leaves the window as files or on the clipboard: the pictures the
//! user asks for during a frame (F12's screenshot, the browser's chart
//! region), kept in one queue and saved once the frame is drawn;
//! `--screenshot`'s picture after the last frame; the panels' text and
//! chart exports ([`save_text`], [`Exports::save_chart`]) and the
//! clipboard ([`copy_text`]).

use std::path::{Path, PathBuf};

use egui_macroquad::egui;

use super::{files, App};
use crate::window::render::{save_screenshot, ProgressiveScene};

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
    screenshot: Option<PathBuf>,
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

    /// Saves the pictures asked for this frame from the window `scene` is
    /// drawn in (`overlay`: the overlay is shown); returns one toast per
    /// picture. Runs after drawing: WebGL clears the drawing buffer once a
    /// frame is shown, so a read while handling input is black.
    pub fn deliver(&mut self, scene: &ProgressiveScene, overlay: bool) -> Vec<String> {
        let queue = std::mem::take(&mut self.queue);
        queue
            .into_iter()
            .map(|export| match export {
                Export::Window => {
                    let saved = match scene.cannot_draw() {
                        Some(why) => Err(format!("the picture is not drawn: {why}")),
                        None => crate::window::render::screenshot_png(overlay),
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
            })
            .collect()
    }

    /// Saves `chart` as the next free `spatial-query-lab-chart-NNN.png`
    /// (1920x1080) and the `.svg` beside it, the same files `lesson
    /// --chart` writes, and returns the toast saying where. The browser
    /// build has no chart renderer: there the panel's own plot (`rect`, in
    /// points; `scale` pixels per point) is saved as a PNG download once
    /// this frame is drawn, and there is no toast until then.
    pub fn save_chart(
        &mut self,
        chart: &crate::teaching::chart::Chart,
        rect: Option<egui::Rect>,
        which: &'static str,
        scale: f32,
    ) -> Option<String> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let _ = (rect, which, scale);
            let saved = crate::teaching::chart::draw::png(chart, crate::teaching::chart::PNG_SIZE)
                .and_then(|png| {
                    let to = files::deliver("spatial-query-lab-chart", "png", &png)?;
                    let svg =
                        crate::teaching::chart::draw::svg(chart, crate::teaching::chart::PNG_SIZE)?;
                    let svg_to = files::deliver("spatial-query-lab-chart", "svg", svg.as_bytes())?;
                    Ok(format!("{to} and {svg_to}"))
                });
            Some(match saved {
                Ok(to) => format!("Chart saved: {to}"),
                Err(e) => format!("Chart not saved: {e}"),
            })
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = chart;
            match rect {
                None => Some(format!("Not saved: the {which} chart is not on screen.")),
                Some(rect) => {
                    let px = [rect.min.x, rect.min.y, rect.width(), rect.height()]
                        .map(|v| (v * scale).round().max(0.0) as u32);
                    // Saved once this frame is drawn ([`App::finish`]).
                    self.request(Export::Region(px, which));
                    None
                }
            }
        }
    }

    /// After the last frame: writes `--screenshot`'s PNG of the window
    /// `scene` is drawn in, if asked, and says so (after `frames` frames,
    /// the slowest refresh `slowest_s` seconds); returns the exit code (1
    /// after printing why the picture could not be written).
    pub fn write_screenshot(
        &self,
        scene: &ProgressiveScene,
        overlay: bool,
        frames: u64,
        slowest_s: Option<f64>,
    ) -> i32 {
        let Some(path) = &self.screenshot else {
            return 0;
        };
        if let Err(e) = save_picture(scene, overlay, path) {
            eprintln!("error: --screenshot: {e}");
            return 1;
        }
        println!(
            "wrote {} after {} frames (slowest refresh {:.0} ms)",
            path.display(),
            frames,
            slowest_s.unwrap_or(0.0) * 1e3
        );
        0
    }
}

/// Writes the window to the PNG at `path` ([`save_screenshot`]), or
/// refuses in one line when `scene` cannot hold the units (no offscreen
/// target) or the picture came back one color with the overlay shown.
fn save_picture(scene: &ProgressiveScene, overlay: bool, path: &Path) -> Result<(), String> {
    if let Some(why) = scene.cannot_draw() {
        return Err(format!("cannot save screenshot {}: {why}", path.display()));
    }
    save_screenshot(path, overlay)
}

/// Saves `text` (or says why there is none) as the next free
/// `{stem}-NNN.{ext}` in the current folder, or as a browser download
/// ([`files::deliver`]); returns the toast saying where, or why not.
pub(super) fn save_text(stem: &str, ext: &str, text: Result<String, String>) -> String {
    match text.and_then(|t| files::deliver(stem, ext, t.as_bytes())) {
        Ok(to) => format!("Saved {to}"),
        Err(e) => format!("Not saved: {e}"),
    }
}

/// Puts `text` on the clipboard: egui's (`ctx`, the window system's), and
/// in the browser also the page's (`navigator.clipboard`), since egui's
/// there reaches the clipboard only on the next Ctrl+C. Returns the
/// toast's words, saying `what` was copied.
pub(super) fn copy_text(ctx: &egui::Context, text: String, what: &str) -> String {
    let page = crate::platform::browser::copy_text(&text);
    // In the browser too: where the page's clipboard is refused, the
    // next Ctrl+C hands egui's to the browser.
    ctx.copy_text(text);
    if page {
        format!("Copied {what} to the clipboard (the page says so if the browser refuses).")
    } else {
        format!("Copied {what} to the clipboard.")
    }
}

impl App {
    /// Saves the pictures asked for this frame, each with its toast.
    pub(super) fn deliver_exports(&mut self) {
        let said = self
            .exports
            .deliver(&self.picture.scene, self.view.show_overlay);
        for message in said {
            self.toast(message);
        }
    }

    /// After the last frame: writes `--screenshot`'s PNG, if asked;
    /// returns the exit code ([`Exports::write_screenshot`]).
    pub(super) fn write_screenshot(&self) -> i32 {
        self.exports.write_screenshot(
            &self.picture.scene,
            self.view.show_overlay,
            self.clock.frame,
            self.stats.slowest_s,
        )
    }
}
