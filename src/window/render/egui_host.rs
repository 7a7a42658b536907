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
//!
//! The wheel, one rule for egui and the camera: each backend reports a notch
//! with its own magnitude ([`WheelSource`]), so every wheel event is turned
//! into notches ([`wheel_notches`]) and egui gets one line per notch
//! ([`LINE_SCROLL_POINTS`] points on every platform). The wheel events that a
//! pass delivers to egui are also summed ([`next_pass`]) and handed to the
//! frame ([`PassInput::wheel`]), where the pointer router gives them to the
//! camera unless the overlay claims the pointer after that pass. Events held
//! back to the next pass (after a press) count in the frame of the pass that
//! delivers them. So every notch counts once, however many arrive in a frame:
//! in the scroll area under the pointer, or as one camera zoom step.
//! (macroquad's own `mouse_wheel()` keeps only the last event of a frame, in
//! the backend's raw magnitude; the window does not use it.)

use std::collections::VecDeque;

use glam::Vec2;

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
    /// A key went down, with the modifiers held at that moment; `true` for
    /// a repeat of a held key.
    KeyDown(KeyCode, KeyMods, bool),
    /// A key went up.
    KeyUp(KeyCode, KeyMods),
}

/// Points one egui line scrolls, on every platform: egui's native default
/// (egui 0.31 `Options::line_scroll_speed`, 40 points), which the host also
/// sets on the web, where egui's default is 8. One wheel notch is one line.
pub const LINE_SCROLL_POINTS: f32 = 40.0;

/// The windowing backend a wheel event comes from: each reports one notch of
/// a mouse wheel with its own magnitude (read in miniquad 0.4.11's sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WheelSource {
    /// X11 (`native/linux_x11.rs`): buttons 4 to 7, 1 per notch.
    X11,
    /// Wayland (`native/linux_wayland.rs`): `wl_pointer.axis` values passed
    /// through (vertical negated); compositors send 10 per notch (weston's and
    /// mutter's step distance; SDL and GLFW divide by 10 too), touchpads
    /// smaller continuous values. Not used by this program (see
    /// [`WheelSource::current`]).
    Wayland,
    /// Windows (`native/windows.rs`): `WM_MOUSEWHEEL`'s delta, `WHEEL_DELTA`
    /// = 120 per notch; high-resolution wheels send fractions of it.
    Windows,
    /// macOS (`native/macos.rs`): `scrollingDeltaY`, one line per notch, times
    /// 10 when the deltas are not precise, so 10 per notch. Trackpads and the
    /// Magic Mouse report precise deltas in points, passed as they are, so
    /// there 10 points count as a notch.
    MacOs,
    /// The browser (`js/gl.js`, `native/wasm.rs`): the DOM wheel event's
    /// `-deltaY` truncated to an integer, its `deltaMode` never read (so
    /// Firefox reports pixels too). Chrome and Edge report 100 CSS pixels per
    /// notch at 100% zoom; other browsers, zoom levels and display scales
    /// report other values, which no setting here can tell apart.
    Web,
}

impl WheelSource {
    /// Every backend, for tests.
    pub const ALL: [WheelSource; 5] = [
        WheelSource::X11,
        WheelSource::Wayland,
        WheelSource::Windows,
        WheelSource::MacOs,
        WheelSource::Web,
    ];

    /// The backend of this build's window: the web for wasm32, Windows,
    /// macOS, else X11 (on Linux miniquad's default `LinuxBackend::X11Only`,
    /// which the window's `Conf` in `src/cli/window.rs` keeps).
    pub const fn current() -> Self {
        if cfg!(target_arch = "wasm32") {
            WheelSource::Web
        } else if cfg!(target_os = "windows") {
            WheelSource::Windows
        } else if cfg!(target_os = "macos") {
            WheelSource::MacOs
        } else {
            WheelSource::X11
        }
    }

    /// What the backend reports for one notch, in its own unit (see the variants).
    pub const fn per_notch(self) -> f32 {
        match self {
            WheelSource::X11 => 1.0,
            WheelSource::Wayland | WheelSource::MacOs => 10.0,
            WheelSource::Windows => 120.0,
            WheelSource::Web => 100.0,
        }
    }
}

/// Wheel notches in one raw `mouse_wheel_event` delta (one axis) from
/// `source`: one notch is one egui line and one camera zoom step. The sign is
/// kept (vertical: positive = away from the user). A non-finite delta is 0.
pub fn wheel_notches(raw: f32, source: WheelSource) -> f32 {
    if raw.is_finite() {
        raw / source.per_notch()
    } else {
        0.0
    }
}

/// The wheel of `events`, notches (x right, y away from the user): the sum
/// of every [`InputEvent::Wheel`] among them, scaled by [`wheel_notches`].
pub fn wheel_sum<'a>(
    events: impl IntoIterator<Item = &'a InputEvent>,
    source: WheelSource,
) -> Vec2 {
    events
        .into_iter()
        .map(|e| match *e {
            InputEvent::Wheel(dx, dy) => {
                Vec2::new(wheel_notches(dx, source), wheel_notches(dy, source))
            }
            _ => Vec2::ZERO,
        })
        .sum()
}

/// The next egui pass over the front of `queue`: how many events it takes
/// ([`deliverable`]) and their wheel ([`wheel_sum`], notches). The caller
/// drains exactly those events, so each wheel event is summed once.
pub fn next_pass(queue: &VecDeque<InputEvent>, source: WheelSource) -> (usize, Vec2) {
    let n = deliverable(queue.iter().copied(), edge);
    (n, wheel_sum(queue.range(..n), source))
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
    fn key_down_event(&mut self, k: KeyCode, mods: KeyMods, repeat: bool) {
        self.queue.push_back(InputEvent::KeyDown(k, mods, repeat));
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

/// What one overlay pass leaves to the rest of the frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassInput {
    /// What the overlay claims of the input.
    pub claims: UiClaims,
    /// The wheel of the events this pass delivered, notches (x right, y away
    /// from the user; see the module docs): for the camera unless the
    /// overlay claims the pointer.
    pub wheel: Vec2,
    /// The keys this pass delivered going down (not repeats), each with the
    /// modifiers held at that moment: a chord pressed and released within
    /// one slow frame is still seen as a chord ([`key_presses`]).
    pub keys: Vec<(KeyCode, KeyMods)>,
}

/// The keys that went down in `events` (repeats left out), in order, each
/// with the modifiers held as it went down.
pub fn key_presses<'a>(
    events: impl IntoIterator<Item = &'a InputEvent>,
) -> Vec<(KeyCode, KeyMods)> {
    events
        .into_iter()
        .filter_map(|e| match *e {
            InputEvent::KeyDown(k, m, false) => Some((k, m)),
            _ => None,
        })
        .collect()
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
        mq.egui_ctx().options_mut(|o| {
            o.line_scroll_speed = LINE_SCROLL_POINTS;
            // The overlay's UI scale owns Ctrl+= / Ctrl+- / Ctrl+0
            // (`ui::ui_scale`): egui's own zoom keys would reset a HiDPI
            // display's scale to 1 on Ctrl+0.
            o.zoom_with_keyboard = false;
        });
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
    /// returns what it claims of the input this frame (with the wheel of the
    /// events it took, [`PassInput::wheel`]): the pointer when it
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
    pub fn run_overlay(&mut self, mut ui: impl FnMut(&egui::Context)) -> PassInput {
        repeat_all_miniquad_input(&mut self.recorder, self.subscriber);
        let source = WheelSource::current();
        let (n, wheel) = next_pass(&self.recorder.queue, source);
        let keys = key_presses(self.recorder.queue.range(..n));
        for e in self.recorder.queue.drain(..n) {
            match e {
                InputEvent::Motion(x, y) => self.mq.mouse_motion_event(x, y),
                // egui-miniquad sends `MouseWheelUnit::Line`: one line per notch.
                InputEvent::Wheel(dx, dy) => self
                    .mq
                    .mouse_wheel_event(wheel_notches(dx, source), wheel_notches(dy, source)),
                InputEvent::Down(b, x, y) => self.mq.mouse_button_down_event(b, x, y),
                InputEvent::Up(b, x, y) => self.mq.mouse_button_up_event(b, x, y),
                InputEvent::Char(c) => self.mq.char_event(c),
                InputEvent::KeyDown(k, m, _) => self.mq.key_down_event(k, m),
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
        PassInput {
            claims,
            wheel,
            keys,
        }
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

    /// What each backend sends for one notch away from the user, read in
    /// miniquad 0.4.11's sources (see [`WheelSource`]).
    fn one_notch_up(source: WheelSource) -> f32 {
        match source {
            // `mouse_wheel_event(0.0, 1.0)` for button 4.
            WheelSource::X11 => 1.0,
            // `-wl_fixed_to_double(value)`, value -10 from the compositor.
            WheelSource::Wayland => -(-10.0),
            // `HIWORD(wparam) as i16`: WHEEL_DELTA.
            WheelSource::Windows => 120.0,
            // `scrollingDeltaY` of 1 line, times 10 (not precise).
            WheelSource::MacOs => 1.0 * 10.0,
            // `-event.deltaY`, Chrome's deltaY of -100 pixels.
            WheelSource::Web => -(-100.0),
        }
    }

    #[test]
    fn ten_notches_are_ten_lines_on_every_backend() {
        // One notch is one line whatever the backend's raw scale (X11 and
        // Windows differ by far more than 90x).
        for source in WheelSource::ALL {
            let raw = one_notch_up(source);
            for sign in [1.0, -1.0] {
                let lines: f32 = (0..10).map(|_| wheel_notches(sign * raw, source)).sum();
                assert!(
                    (lines - 10.0 * sign).abs() < 1e-5,
                    "{source:?}: ten notches gave {lines} lines"
                );
            }
        }
        assert_eq!(wheel_notches(f32::NAN, WheelSource::X11), 0.0);
        assert_eq!(wheel_notches(f32::INFINITY, WheelSource::Windows), 0.0);
        #[cfg(target_os = "linux")]
        assert_eq!(WheelSource::current(), WheelSource::X11);
    }

    #[test]
    fn every_wheel_event_of_a_slow_frame_counts() {
        // macroquad's `mouse_wheel()` keeps only the last wheel event of a
        // frame; the event queue counts every notch of a slow frame.
        use InputEvent::*;
        for source in WheelSource::ALL {
            let up = Wheel(0.0, one_notch_up(source));
            let q: VecDeque<InputEvent> = [
                Motion(900.0, 400.0),
                up,
                up,
                Motion(901.0, 400.0),
                up,
                up,
                Char('x'),
                up,
            ]
            .into();
            let (n, wheel) = next_pass(&q, source);
            assert_eq!(n, q.len());
            assert!(
                (wheel - Vec2::new(0.0, 5.0)).length() < 1e-5,
                "{source:?}: five notches summed to {wheel}"
            );
        }
    }

    #[test]
    fn a_wheel_held_back_after_a_press_counts_once_in_the_next_pass() {
        use InputEvent::*;
        let l = MouseButton::Left;
        let source = WheelSource::Windows;
        let (up, down) = (Wheel(0.0, 120.0), Wheel(0.0, -120.0));
        let mut q: VecDeque<InputEvent> =
            [up, Down(l, 1.0, 1.0), down, down, down, Up(l, 1.0, 1.0)].into();
        let (n, first) = next_pass(&q, source);
        assert_eq!((n, first), (2, Vec2::new(0.0, 1.0)), "up to the press");
        q.drain(..n);
        let (n, second) = next_pass(&q, source);
        assert_eq!((n, second), (4, Vec2::new(0.0, -3.0)), "the rest, once");
    }

    #[test]
    fn key_presses_keep_their_modifiers_and_leave_out_repeats() {
        let ctrl = KeyMods {
            ctrl: true,
            ..KeyMods::default()
        };
        let none = KeyMods::default();
        let events = [
            InputEvent::KeyDown(KeyCode::LeftControl, none, false),
            InputEvent::KeyDown(KeyCode::Equal, ctrl, false),
            InputEvent::KeyUp(KeyCode::Equal, ctrl),
            InputEvent::KeyUp(KeyCode::LeftControl, none),
            InputEvent::KeyDown(KeyCode::Equal, none, false),
            InputEvent::KeyDown(KeyCode::Equal, none, true),
        ];
        assert_eq!(
            key_presses(&events),
            [
                (KeyCode::LeftControl, none),
                (KeyCode::Equal, ctrl),
                (KeyCode::Equal, none)
            ]
        );
    }
}
