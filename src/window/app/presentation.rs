//! How the window presents itself: where the camera frames the world (in
//! the part of the window the overlay panel leaves free), the overlay's UI
//! scale and full screen.

use glam::Vec2;
use macroquad::prelude::{screen_dpi_scale, screen_height, screen_width};

use super::App;
use crate::window::render::{view_region, EguiHost, OrbitCamera};
use crate::window::ui::ui_scale::clamp_ui_scale;
use crate::window::ui::Overlay;

/// The overlay in the window: egui's host (events in, paint out), the
/// overlay's widgets and where its panels were last drawn.
pub(super) struct OverlayHost {
    /// egui inside macroquad: runs a pass on this frame's events, paints it.
    pub egui: EguiHost,
    /// The overlay's widgets and their own state (sections open, scroll).
    pub overlay: Overlay,
    /// Where the overlay's panels were drawn, and the window's full-screen state.
    pub placement: Placement,
}

/// Where the window's parts are: the overlay panel and the docked lessons
/// column as the last overlay pass drew them, what the camera was last
/// framed for, and the window's full-screen state.
pub(super) struct Placement {
    /// Where the overlay panel was last drawn, points (`None` before the
    /// first pass or while hidden).
    pub panel: Option<egui_macroquad::egui::Rect>,
    /// The right column the lessons panel (and the memory view with it) is
    /// docked in, points, while the lessons panel is open.
    pub dock: Option<egui_macroquad::egui::Rect>,
    /// What the camera was last framed for ([`App::keep_framed`]).
    framed: Option<Framed>,
    /// The window is full screen (as last applied).
    fullscreen: bool,
    /// `--window`'s size, pixels: what leaving full screen asks for.
    window_size: (i32, i32),
}

impl Placement {
    /// Before the first overlay pass: the camera framed as `framed`, the
    /// window full screen or not and of `window_size` pixels otherwise.
    pub fn new(framed: Framed, fullscreen: bool, window_size: (i32, i32)) -> Self {
        Placement {
            panel: None,
            dock: None,
            framed: Some(framed),
            fullscreen,
            window_size,
        }
    }
}

/// What the world was last framed for: the camera the framing produced,
/// and the world edge and the region of the window it was fitted into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Framed {
    camera: OrbitCamera,
    world: f32,
    region: (Vec2, Vec2),
}

/// The world (edge `world`, world units) framed in `region` of the window
/// (logical pixels, y down), and what it was framed for.
pub(super) fn framed_in(world: f32, region: (Vec2, Vec2)) -> (OrbitCamera, Framed) {
    let mut camera = OrbitCamera::looking_at_world(world);
    camera.frame_world_in_region(world, window_size(), region);
    let framed = Framed {
        camera,
        world,
        region,
    };
    (camera, framed)
}

/// The window's size, logical pixels (macroquad's `screen_width`, `screen_height`).
fn window_size() -> Vec2 {
    Vec2::new(screen_width(), screen_height())
}

/// Whether two regions differ by more than a pixel on some edge.
fn moved(a: (Vec2, Vec2), b: (Vec2, Vec2)) -> bool {
    (a.0 - b.0).abs().max_element() > 1.0 || (a.1 - b.1).abs().max_element() > 1.0
}

impl App {
    /// The part of the window beside the overlay panel (the whole window
    /// while the overlay is hidden) and left of the docked lessons column,
    /// logical pixels: see [`view_region`].
    pub(super) fn free_region(&self) -> (Vec2, Vec2) {
        // egui points to macroquad's logical pixels: the UI scale.
        let k = self.ui.egui.ctx().pixels_per_point() / screen_dpi_scale().max(1e-3);
        // A panel collapsed to its title bar leaves the window's height free.
        let panel = self
            .ui
            .placement
            .panel
            .filter(|r| self.view.show_overlay && r.height() * k > 0.3 * window_size().y)
            .map(|r| {
                (
                    Vec2::new(r.min.x, r.min.y) * k,
                    Vec2::new(r.max.x, r.max.y) * k,
                )
            });
        let (lo, mut hi) = view_region(window_size(), panel);
        if let Some(d) = self.ui.placement.dock {
            // The dock covers the right of the window: the free part ends
            // where it starts, unless that would leave almost nothing.
            let x = d.min.x * k;
            if x - lo.x > 0.2 * window_size().x {
                hi.x = hi.x.min(x);
            }
        }
        (lo, hi)
    }

    /// Frames the whole world beside the overlay panel and stops following
    /// the selected unit (C, the overlay's "camera" button, a new world).
    pub(super) fn frame_world(&mut self) {
        let (camera, framed) = framed_in(self.stepping.world, self.free_region());
        self.camera = camera;
        self.ui.placement.framed = Some(framed);
        self.picking.selection.set_follow(false);
    }

    /// Frames the world again when the camera is still where the last
    /// framing put it but the free part of the window changed since: the
    /// first frame's panel, a resize, full screen, the UI scale, a section
    /// opened wider. A camera the user moved (or `--select` placed) stays.
    pub(super) fn keep_framed(&mut self) {
        let Some(f) = self.ui.placement.framed else {
            return;
        };
        if f.camera == self.camera
            && f.world == self.stepping.world
            && moved(f.region, self.free_region())
        {
            self.frame_world();
        }
    }

    /// Hands the UI scale to egui (times the display's own scale; takes effect
    /// in the next pass) and enters or leaves full screen when the overlay or
    /// F11 asked for it.
    pub(super) fn apply_presentation(&mut self) {
        self.view.ui_scale = clamp_ui_scale(self.view.ui_scale);
        self.ui
            .egui
            .ctx()
            .set_pixels_per_point(screen_dpi_scale() * self.view.ui_scale);
        if self.view.fullscreen != self.ui.placement.fullscreen {
            self.ui.placement.fullscreen = self.view.fullscreen;
            macroquad::window::set_fullscreen(self.ui.placement.fullscreen);
            if !self.ui.placement.fullscreen {
                // miniquad's X11 backend only drops the full-screen state;
                // ask for the start-up size back as well.
                let (w, h) = self.ui.placement.window_size;
                macroquad::window::request_new_screen_size(w as f32, h as f32);
            }
        }
    }
}
