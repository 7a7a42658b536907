//! Hosts egui in the macroquad window: feeds it the window's input events and
//! paints its output (through `egui-miniquad`, the layer `egui-macroquad`
//! is built on).
//!
//! Why not `egui_macroquad::ui`: it hands egui every event since the last
//! frame in one pass. At a low frame rate a whole drag (press, moves,
//! release) can arrive between two frames, and egui then sees neither a click
//! (the pointer moved too far) nor a drag (the button is already up), so the
//! drag is lost. This host delivers events in order but ends a pass at a
//! button press ([`deliverable`]): what follows the press waits one frame, so
//! every drag reaches the widget it started on.

use std::collections::VecDeque;

use egui_macroquad::egui;
use egui_miniquad::EguiMq;

use macroquad::input::utils::{register_input_subscriber, repeat_all_miniquad_input};
use macroquad::miniquad::{self as mq, EventHandler, KeyCode, KeyMods, MouseButton};
use macroquad::window::get_internal_gl;

/// One window input event, as miniquad reports it (pixels, not points).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputEvent {
    /// The pointer moved to (x, y).
    Motion(f32, f32),
    /// The wheel turned by (dx, dy).
    Wheel(f32, f32),
    /// A mouse button went down at (x, y).
    Down(MouseButton, f32, f32),
    /// A mouse button went up at (x, y).
    Up(MouseButton, f32, f32),
    /// A character was typed.
    Char(char),
    /// A key went down.
    KeyDown(KeyCode, KeyMods),
    /// A key went up.
    KeyUp(KeyCode, KeyMods),
}

/// A button transition of an event: `(button, pressed)`.
pub type ButtonEdge<B> = (B, bool);

/// How many of `events` (in order) one egui pass may take: everything up to
/// and including the first button press. egui decides what a press grabs from
/// the pointer position at the end of the pass, and a release in the same
/// pass as its press is neither a click (the pointer moved) nor a drag, so the
/// moves and the release after a press wait for the next pass. `edge`
/// classifies an event as a button transition `(button, pressed)` or not.
pub fn deliverable<E, B>(
    events: impl IntoIterator<Item = E>,
    edge: impl Fn(&E) -> Option<ButtonEdge<B>>,
) -> usize {
    let mut n = 0;
    for e in events {
        n += 1;
        if let Some((_, true)) = edge(&e) {
            break;
        }
    }
    n
}

fn edge(e: &InputEvent) -> Option<ButtonEdge<MouseButton>> {
    match *e {
        InputEvent::Down(b, ..) => Some((b, true)),
        InputEvent::Up(b, ..) => Some((b, false)),
        _ => None,
    }
}

/// Collects the events macroquad replays to an input subscriber.
#[derive(Default)]
struct Recorder {
    queue: VecDeque<InputEvent>,
}

impl EventHandler for Recorder {
    fn update(&mut self) {}
    fn draw(&mut self) {}
    fn mouse_motion_event(&mut self, x: f32, y: f32) {
        self.queue.push_back(InputEvent::Motion(x, y));
    }
    fn mouse_wheel_event(&mut self, dx: f32, dy: f32) {
        self.queue.push_back(InputEvent::Wheel(dx, dy));
    }
    fn mouse_button_down_event(&mut self, b: MouseButton, x: f32, y: f32) {
        self.queue.push_back(InputEvent::Down(b, x, y));
    }
    fn mouse_button_up_event(&mut self, b: MouseButton, x: f32, y: f32) {
        self.queue.push_back(InputEvent::Up(b, x, y));
    }
    fn char_event(&mut self, c: char, _mods: KeyMods, _repeat: bool) {
        self.queue.push_back(InputEvent::Char(c));
    }
    fn key_down_event(&mut self, k: KeyCode, mods: KeyMods, _repeat: bool) {
        self.queue.push_back(InputEvent::KeyDown(k, mods));
    }
    fn key_up_event(&mut self, k: KeyCode, mods: KeyMods) {
        self.queue.push_back(InputEvent::KeyUp(k, mods));
    }
}

/// What the overlay claims of one frame's input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UiClaims {
    /// The pointer is over the overlay or dragging something in it.
    pub pointer: bool,
    /// A text field has the keyboard.
    pub keyboard: bool,
}

/// egui in the window: one [`EguiHost::run_overlay`] and one [`EguiHost::draw`] per frame.
pub struct EguiHost {
    mq: EguiMq,
    subscriber: usize,
    recorder: Recorder,
    /// Passes run so far (the first frame runs two; see `run_overlay`).
    passes: u64,
}

impl EguiHost {
    /// Creates the egui context and its painter. Call once, inside the window.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    // No `Default`: creating one needs the window, which a default suggests it does not.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        // SAFETY: macroquad's context exists (`get_internal_gl` asserts it;
        // we run inside the window, on its thread); the borrow is a temporary
        // that ends with this statement, before any other macroquad call.
        let mq = EguiMq::new(unsafe { get_internal_gl() }.quad_context);
        EguiHost {
            mq,
            subscriber: register_input_subscriber(),
            recorder: Recorder::default(),
            passes: 0,
        }
    }

    /// The egui context (e.g. to set the pixels per point).
    pub fn ctx(&self) -> &egui::Context {
        self.mq.egui_ctx()
    }

    /// Runs one egui pass of `ui` (the overlay) over the events that came
    /// since the last call (or waited from it; see [`deliverable`]) and
    /// returns what it claims of the input this frame: the pointer when it
    /// is over the overlay or dragging in it, the keyboard when a text field
    /// had focus before the pass or has it after (so the Esc that ends an edit,
    /// or a key typed into a field that a click then left, reaches only the field).
    ///
    /// The first call runs the overlay twice and paints the second pass:
    /// egui lays a new window out invisibly in its first pass, so without
    /// this the first frame (a `--frames 1` screenshot) has no overlay.
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn run_overlay(&mut self, mut ui: impl FnMut(&egui::Context)) -> UiClaims {
        repeat_all_miniquad_input(&mut self.recorder, self.subscriber);
        let n = deliverable(self.recorder.queue.iter().copied(), edge);
        for e in self.recorder.queue.drain(..n) {
            match e {
                InputEvent::Motion(x, y) => self.mq.mouse_motion_event(x, y),
                // Same scaling as egui-macroquad: miniquad reports 90 per notch on desktops.
                InputEvent::Wheel(dx, dy) => self.mq.mouse_wheel_event(dx / 90.0, dy / 90.0),
                InputEvent::Down(b, x, y) => self.mq.mouse_button_down_event(b, x, y),
                InputEvent::Up(b, x, y) => self.mq.mouse_button_up_event(b, x, y),
                InputEvent::Char(c) => self.mq.char_event(c),
                InputEvent::KeyDown(k, m) => self.mq.key_down_event(k, m),
                InputEvent::KeyUp(k, m) => self.mq.key_up_event(k, m),
            }
        }
        let focused_before = self.mq.egui_ctx().wants_keyboard_input();
        let mut claims = UiClaims::default();
        // SAFETY: macroquad's context exists (we run inside the window, on its
        // thread: `get_internal_gl` asserts the context); `gl` lives until the
        // end of this function, and nothing here touches macroquad meanwhile:
        // the closure `ui` draws the overlay, which only calls egui.
        let gl = unsafe { get_internal_gl() };
        let passes = if self.passes == 0 { 2 } else { 1 };
        for _ in 0..passes {
            self.mq
                .run(gl.quad_context, |_: &mut dyn mq::RenderingBackend, ctx| {
                    ui(ctx);
                    claims = UiClaims {
                        pointer: ctx.is_pointer_over_area() || ctx.wants_pointer_input(),
                        keyboard: focused_before || ctx.wants_keyboard_input(),
                    };
                });
            self.passes += 1;
            if self.passes == 1 && passes == 2 {
                // Paint the layout pass (nothing visible: egui hides a new
                // window in it) so its output is consumed, not overwritten.
                self.mq.draw(gl.quad_context);
            }
        }
        claims
    }

    /// Paints the output of the last [`EguiHost::run_overlay`] over what was drawn
    /// so far (macroquad's queued geometry is flushed first).
    ///
    /// # Panics
    /// If called outside a running macroquad window.
    pub fn draw(&mut self) {
        // SAFETY: macroquad's context exists (`get_internal_gl` asserts it);
        // `gl` lives until the end of this function, and only `flush` and
        // egui-miniquad's painter use it meanwhile, no other macroquad call.
        let mut gl = unsafe { get_internal_gl() };
        gl.flush();
        self.mq.draw(gl.quad_context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_ends_at_a_press() {
        use InputEvent::*;
        let l = MouseButton::Left;
        let mut q: VecDeque<InputEvent> = [
            Motion(1.0, 1.0),
            Down(l, 1.0, 1.0),
            Motion(50.0, 1.0),
            Up(l, 50.0, 1.0),
            Motion(60.0, 1.0),
        ]
        .into();
        let n = deliverable(q.iter().copied(), edge);
        assert_eq!(n, 2, "up to the press");
        q.drain(..n);
        assert_eq!(
            deliverable(q.iter().copied(), edge),
            3,
            "the drag and release next pass"
        );
    }

    #[test]
    fn passes_without_a_press_take_everything() {
        use InputEvent::*;
        let (l, r) = (MouseButton::Left, MouseButton::Right);
        let q = [
            Up(l, 0.0, 0.0),
            Char('a'),
            Down(r, 0.0, 0.0),
            Up(r, 0.0, 0.0),
        ];
        assert_eq!(deliverable(q.iter().copied(), edge), 3);
        assert_eq!(deliverable([Char('x'), Wheel(0.0, 1.0)], edge), 2);
        assert_eq!(deliverable(std::iter::empty::<InputEvent>(), edge), 0);
    }
}
