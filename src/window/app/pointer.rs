//! Who gets the mouse: the overlay or the scene (camera and picking).
//!
//! A press belongs to whichever was under the pointer when it went down, and
//! everything until the last button is released belongs to the same owner: a
//! drag that starts on a slider never turns the camera, even when it leaves
//! the panel, and a click on a button never selects the unit behind it. Pure
//! state machine over one frame's pointer events, so it is tested headless.

use glam::Vec2;

/// Pixels the pointer may move between press and release for a click.
pub const CLICK_SLOP_PX: f32 = 5.0;

/// One frame of mouse input, as macroquad reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointerFrame {
    /// Pointer position, logical pixels from the top left.
    pub pos: Vec2,
    /// Buttons that went down this frame: left, right, middle.
    pub pressed: [bool; 3],
    /// Buttons that went up this frame: left, right, middle.
    pub released: [bool; 3],
    /// Buttons held at the end of the frame: left, right, middle.
    pub down: [bool; 3],
    /// Wheel notches of this frame's overlay pass, positive = away from the
    /// user: the sum of every wheel event the pass delivered
    /// ([`crate::window::render::egui_host::PassInput::wheel`]), so none is lost or
    /// counted twice.
    pub wheel: f32,
}

/// The part of a frame's mouse input that belongs to the scene.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SceneInput {
    /// Pointer movement during a left drag, pixels (x right, y down).
    pub orbit_drag: Vec2,
    /// Pointer movement during a right or middle drag, pixels.
    pub pan_drag: Vec2,
    /// Wheel notches (all of the frame's, or none when the overlay has the pointer).
    pub wheel: f32,
    /// A left click (press and release within [`CLICK_SLOP_PX`]) at this position, pixels.
    pub click: Option<Vec2>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Ui,
    Scene,
}

/// Routes each frame's mouse input to the overlay or the scene; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct PointerRouter {
    owner: Option<Owner>,
    press_at: Option<Vec2>,
    moved_too_far: bool,
    last_pos: Option<Vec2>,
}

impl PointerRouter {
    /// Routes one frame. `ui_claims` is whether the overlay wants the pointer
    /// in this frame (egui's `is_pointer_over_area() || wants_pointer_input()`
    /// after this frame's overlay pass). Returns what the scene may use:
    /// nothing of a press that began on the overlay, and no wheel over it.
    pub fn route(&mut self, f: &PointerFrame, ui_claims: bool) -> SceneInput {
        let pressed_now = f.pressed.iter().any(|&b| b);
        // No jump on the press frame: movement before the press is not a drag.
        let delta = match self.last_pos {
            Some(p) if !pressed_now => f.pos - p,
            _ => Vec2::ZERO,
        };
        self.last_pos = Some(f.pos);
        if self.owner.is_none() && pressed_now {
            self.owner = Some(if ui_claims { Owner::Ui } else { Owner::Scene });
            if f.pressed[0] && !ui_claims {
                self.press_at = Some(f.pos);
                self.moved_too_far = false;
            }
        }
        let mut out = SceneInput::default();
        if self.owner == Some(Owner::Scene) {
            if f.down[0] {
                out.orbit_drag = delta;
            } else if f.down[1] || f.down[2] {
                out.pan_drag = delta;
            }
            if let Some(p) = self.press_at {
                self.moved_too_far |= p.distance(f.pos) >= CLICK_SLOP_PX;
                if f.released[0] {
                    self.press_at = None;
                    if !self.moved_too_far {
                        out.click = Some(f.pos);
                    }
                }
            }
        }
        if !ui_claims && self.owner != Some(Owner::Ui) {
            out.wheel = f.wheel;
        }
        if !f.down.iter().any(|&b| b) {
            self.owner = None;
            self.press_at = None;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::render::camera::ZOOM_PER_NOTCH;
    use crate::window::render::egui_host::{wheel_sum, InputEvent, WheelSource};
    use crate::window::render::{CameraInput, OrbitCamera};

    fn at(x: f32, y: f32) -> PointerFrame {
        PointerFrame {
            pos: Vec2::new(x, y),
            ..Default::default()
        }
    }

    fn press(x: f32, y: f32, button: usize) -> PointerFrame {
        let mut f = at(x, y);
        f.pressed[button] = true;
        f.down[button] = true;
        f
    }

    fn hold(x: f32, y: f32, button: usize) -> PointerFrame {
        let mut f = at(x, y);
        f.down[button] = true;
        f
    }

    fn release(x: f32, y: f32, button: usize) -> PointerFrame {
        let mut f = at(x, y);
        f.released[button] = true;
        f
    }

    #[test]
    fn click_on_the_overlay_never_reaches_picking() {
        // A click on a panel control ("= r") never also selects the unit behind it.
        let mut r = PointerRouter::default();
        r.route(&at(100.0, 180.0), true);
        assert_eq!(
            r.route(&press(100.0, 180.0, 0), true),
            SceneInput::default()
        );
        assert_eq!(
            r.route(&release(100.0, 180.0, 0), true),
            SceneInput::default()
        );
    }

    #[test]
    fn click_on_the_scene_selects() {
        let mut r = PointerRouter::default();
        r.route(&at(700.0, 400.0), false);
        assert_eq!(r.route(&press(700.0, 400.0, 0), false).click, None);
        let out = r.route(&release(702.0, 401.0, 0), false);
        assert_eq!(out.click, Some(Vec2::new(702.0, 401.0)));
    }

    #[test]
    fn press_and_release_in_one_slow_frame_is_still_routed() {
        let mut scene = PointerRouter::default();
        let mut f = press(700.0, 400.0, 0);
        f.released[0] = true;
        f.down[0] = false;
        assert_eq!(scene.route(&f, false).click, Some(Vec2::new(700.0, 400.0)));
        let mut ui = PointerRouter::default();
        assert_eq!(ui.route(&f, true), SceneInput::default());
    }

    #[test]
    fn a_drag_that_starts_on_a_slider_never_turns_the_camera() {
        let mut r = PointerRouter::default();
        r.route(&at(100.0, 120.0), true);
        r.route(&press(100.0, 120.0, 0), true);
        // Dragged right, off the panel: egui may no longer claim the pointer.
        for x in [150.0, 300.0, 600.0] {
            let out = r.route(&hold(x, 120.0, 0), false);
            assert_eq!(out, SceneInput::default(), "at x = {x}");
        }
        assert_eq!(
            r.route(&release(600.0, 120.0, 0), false),
            SceneInput::default()
        );
        // The next press on the scene is the scene's again.
        r.route(&press(600.0, 120.0, 0), false);
        let out = r.route(&hold(620.0, 130.0, 0), false);
        assert_eq!(out.orbit_drag, Vec2::new(20.0, 10.0));
    }

    #[test]
    fn a_scene_drag_keeps_the_camera_over_the_panel_and_is_not_a_click() {
        let mut r = PointerRouter::default();
        r.route(&at(700.0, 400.0), false);
        assert_eq!(
            r.route(&press(700.0, 400.0, 0), false).orbit_drag,
            Vec2::ZERO
        );
        let out = r.route(&hold(300.0, 400.0, 0), true);
        assert_eq!(out.orbit_drag, Vec2::new(-400.0, 0.0));
        // Back to the start before letting go: moved too far for a click.
        r.route(&hold(700.0, 400.0, 0), false);
        assert_eq!(r.route(&release(700.0, 400.0, 0), false).click, None);
    }

    #[test]
    fn right_drag_pans_and_wheel_over_the_panel_is_ignored() {
        let mut r = PointerRouter::default();
        r.route(&at(700.0, 400.0), false);
        r.route(&press(700.0, 400.0, 1), false);
        let out = r.route(&hold(710.0, 395.0, 1), false);
        assert_eq!(out.pan_drag, Vec2::new(10.0, -5.0));
        assert_eq!(out.orbit_drag, Vec2::ZERO);
        assert_eq!(out.click, None);
        r.route(&release(710.0, 395.0, 1), false);

        let mut wheel = at(100.0, 100.0);
        wheel.wheel = 2.0;
        assert_eq!(r.route(&wheel, true).wheel, 0.0);
        assert_eq!(r.route(&wheel, false).wheel, 2.0);
    }

    /// Runs the frames (each the events one overlay pass delivers) through
    /// the wheel sum, the router and the camera as `App::input` does;
    /// returns the camera's distance at the end.
    fn zoom_after(frames: &[Vec<InputEvent>], source: WheelSource, over_panel: bool) -> f32 {
        let mut router = PointerRouter::default();
        let mut camera = OrbitCamera::looking_at_world(443.0);
        for events in frames {
            let frame = PointerFrame {
                pos: Vec2::new(900.0, 400.0),
                wheel: wheel_sum(events, source).y,
                ..Default::default()
            };
            let scene = router.route(&frame, over_panel);
            let input = CameraInput {
                wheel: scene.wheel,
                ..Default::default()
            };
            camera.apply_input(&input, 800.0);
        }
        camera.distance
    }

    #[test]
    fn five_notches_in_one_slow_frame_zoom_as_five_frames_do() {
        // Hard case W2: at 10 frames per second five quick notches zoomed
        // the camera one step (only the last wheel event of a frame was kept).
        let start = OrbitCamera::looking_at_world(443.0).distance;
        let five_steps = start * ZOOM_PER_NOTCH.powi(5);
        for source in WheelSource::ALL {
            let notch = InputEvent::Wheel(0.0, source.per_notch());
            let one_slow = vec![vec![notch; 5]];
            let spread = vec![vec![notch]; 5];
            for (frames, what) in [(one_slow, "one frame"), (spread, "five frames")] {
                let d = zoom_after(&frames, source, false);
                assert!(
                    (d / five_steps - 1.0).abs() < 1e-4,
                    "{source:?}, {what}: distance {d}, five steps {five_steps}"
                );
                assert_eq!(zoom_after(&frames, source, true), start, "over the panel");
            }
        }
    }
}
