//! The keyboard bindings: one table ([`BINDINGS`]) that drives both the key
//! handling of the frame loop and the help window (and, through a test, the
//! README's controls table), so they cannot disagree.

use macroquad::input::KeyCode;
use macroquad::miniquad::KeyMods;

use crate::engine::spatial::Strategy;

/// The exports a panel offers, one key each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Export {
    /// Copy Markdown (to the clipboard).
    Markdown,
    /// Save CSV.
    Csv,
    /// Save JSON.
    Json,
    /// Save chart.
    Chart,
}

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Switch to a strategy.
    Strategy(Strategy),
    /// Next kernel this CPU runs.
    NextKernel,
    /// Next data layout.
    NextLayout,
    /// Other pass: collect ids or fused.
    TogglePass,
    /// Switch the vertex layout between compressed and uncompressed.
    ToggleVertexLayout,
    /// Switch the compressed normals between 16 and 8 bits per component.
    ToggleNormalPrecision,
    /// Next unit mesh (tank, infantry, vehicle).
    NextUnitMesh,
    /// Next thread count (1 to the core count).
    NextThreads,
    /// Pause or resume movement.
    TogglePause,
    /// Cell size / 1.25 (stops the cell following the radius).
    CellSmaller,
    /// Cell size * 1.25 (stops the cell following the radius).
    CellLarger,
    /// Start the cell-size sweep, or cancel or close it.
    CellSweep,
    /// Radius / 1.25.
    RadiusSmaller,
    /// Radius * 1.25.
    RadiusLarger,
    /// Grid lines on or off.
    ToggleGrid,
    /// Next unit color mode.
    NextColorMode,
    /// Cell occupancy heat map on or off.
    ToggleOccupancy,
    /// Respawn the units from the seed.
    Respawn,
    /// Frame the whole world.
    ResetCamera,
    /// The camera follows the selected unit, or stops following it.
    ToggleFollow,
    /// Hide or show the overlay.
    ToggleOverlay,
    /// Open or close the help window.
    ToggleHelp,
    /// Enter or leave full screen.
    ToggleFullscreen,
    /// Save a PNG of the window in the current folder.
    SaveScreenshot,
    /// Show or hide the memory view.
    ToggleMemory,
    /// Measure the current settings and add a row to the compare panel.
    Measure,
    /// Open or close the lessons panel.
    ToggleLessons,
    /// The lesson's next step.
    LessonNext,
    /// The lesson's previous step.
    LessonBack,
    /// Copy a link to the current state.
    CopyLink,
    /// Open the presenter view (the browser) or print the step's notes.
    Presenter,
    /// An export of the lesson panel when a lesson is open, else of the
    /// compare panel (the panel's button of the same name).
    Export(Export),
    /// Deselect the selected unit.
    Deselect,
    /// Pan the camera forward while held.
    PanForward,
    /// Pan the camera back while held.
    PanBack,
    /// Pan the camera left while held.
    PanLeft,
    /// Pan the camera right while held.
    PanRight,
    /// Orbit clockwise (seen from above) while held.
    OrbitLeft,
    /// Orbit counter-clockwise while held.
    OrbitRight,
    /// Zoom in while held.
    ZoomIn,
    /// Zoom out while held.
    ZoomOut,
}

impl Action {
    /// True for actions that act every frame while their key is held (camera
    /// movement); the others act once per press.
    pub fn is_held(self) -> bool {
        matches!(
            self,
            Action::PanForward
                | Action::PanBack
                | Action::PanLeft
                | Action::PanRight
                | Action::OrbitLeft
                | Action::OrbitRight
                | Action::ZoomIn
                | Action::ZoomOut
        )
    }
}

/// One binding: any of `keys` triggers `action`; `help` is its line in the
/// help window (consecutive bindings with the same text share a line).
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    /// Keys that trigger the action.
    pub keys: &'static [KeyCode],
    /// What they do.
    pub action: Action,
    /// Help text.
    pub help: &'static str,
}

const fn bind(keys: &'static [KeyCode], action: Action, help: &'static str) -> Binding {
    Binding { keys, action, help }
}

const STRATEGY: &str = "strategy: Naive / Grid / SortedGrid";
const CELL: &str = "cell size smaller / larger (stops \"cell = r\")";
const RADIUS: &str = "query radius smaller / larger";
const PAN: &str = "pan the camera";
const ORBIT: &str = "orbit the camera";
const ZOOM: &str = "zoom the camera in / out while held (as the wheel does)";

/// Every key binding of the window.
pub const BINDINGS: &[Binding] = &[
    bind(
        &[KeyCode::Key1],
        Action::Strategy(Strategy::Naive),
        STRATEGY,
    ),
    bind(&[KeyCode::Key2], Action::Strategy(Strategy::Grid), STRATEGY),
    bind(
        &[KeyCode::Key3],
        Action::Strategy(Strategy::SortedGrid),
        STRATEGY,
    ),
    bind(&[KeyCode::K], Action::NextKernel, "next available kernel"),
    bind(
        &[KeyCode::L],
        Action::NextLayout,
        "next data layout (AoS pointers / AoS / SoA / hot-cold)",
    ),
    bind(
        &[KeyCode::P],
        Action::TogglePass,
        "pass: collect ids (neighbor lists written, then read back) / fused (aggregates summed in the kernel)",
    ),
    bind(
        &[KeyCode::B],
        Action::ToggleVertexLayout,
        "vertex layout: compressed (SNORM16 + octahedral streams, 8-byte instances) / uncompressed (f32)",
    ),
    bind(
        &[KeyCode::N],
        Action::ToggleNormalPrecision,
        "normal precision: octahedral 16 / 8 bits per component (see it with colors: normal error)",
    ),
    bind(
        &[KeyCode::U],
        Action::NextUnitMesh,
        "unit mesh: tank (built in) / infantry / vehicle (assets/*.obj)",
    ),
    bind(&[KeyCode::T], Action::NextThreads, "next thread count"),
    bind(
        &[KeyCode::Space],
        Action::TogglePause,
        "pause movement (the index and queries keep running, so timings stay live)",
    ),
    bind(&[KeyCode::LeftBracket], Action::CellSmaller, CELL),
    bind(&[KeyCode::RightBracket], Action::CellLarger, CELL),
    bind(
        &[KeyCode::Backslash],
        Action::CellSweep,
        "cell-size sweep: start, or cancel / close",
    ),
    bind(&[KeyCode::Minus], Action::RadiusSmaller, RADIUS),
    bind(&[KeyCode::Equal], Action::RadiusLarger, RADIUS),
    bind(
        &[KeyCode::G],
        Action::ToggleGrid,
        "grid lines at the cell size",
    ),
    bind(
        &[KeyCode::V],
        Action::NextColorMode,
        "unit colors: team / neighbor heat / memory order / normal error",
    ),
    bind(
        &[KeyCode::O],
        Action::ToggleOccupancy,
        "cell occupancy heat map on the ground",
    ),
    bind(&[KeyCode::R], Action::Respawn, "respawn from the seed"),
    bind(&[KeyCode::C], Action::ResetCamera, "reset the camera"),
    bind(
        &[KeyCode::F],
        Action::ToggleFollow,
        "camera follows the selected unit, or stops following",
    ),
    bind(
        &[KeyCode::H, KeyCode::Tab],
        Action::ToggleOverlay,
        "hide / show the overlay",
    ),
    bind(&[KeyCode::F1], Action::ToggleHelp, "help window"),
    bind(
        &[KeyCode::F11],
        Action::ToggleFullscreen,
        "full screen on / off",
    ),
    bind(
        &[KeyCode::F12],
        Action::SaveScreenshot,
        "save a screenshot (PNG, in the current folder; a download in the browser; the overlay names it)",
    ),
    bind(
        &[KeyCode::M],
        Action::ToggleMemory,
        "memory view: cache lines one query touches",
    ),
    bind(
        &[KeyCode::Enter],
        Action::Measure,
        "measure the current settings and add a row to the compare panel",
    ),
    bind(
        &[KeyCode::F2],
        Action::ToggleLessons,
        "lessons: guided steps that measure on this machine as they go",
    ),
    bind(
        &[KeyCode::PageDown],
        Action::LessonNext,
        "the lesson's next step (a presenter's clicker sends this key)",
    ),
    bind(
        &[KeyCode::PageUp],
        Action::LessonBack,
        "the lesson's previous step",
    ),
    bind(
        &[KeyCode::F4],
        Action::CopyLink,
        "copy a link to this state: lesson, step and every setting changed (the command line: the share menu)",
    ),
    bind(
        &[KeyCode::F3],
        Action::Presenter,
        "presenter view: the step's notes, the next step, a clock (a second browser window; on the desktop the notes print in the terminal)",
    ),
    bind(
        &[KeyCode::F6],
        Action::Export(Export::Markdown),
        "copy the open lesson (else the compare panel) as Markdown",
    ),
    bind(
        &[KeyCode::F7],
        Action::Export(Export::Csv),
        "save the open lesson's (else the compare panel's) CSV; a download in the browser",
    ),
    bind(
        &[KeyCode::F8],
        Action::Export(Export::Json),
        "save the open lesson's (else the compare panel's) JSON; a download in the browser",
    ),
    bind(
        &[KeyCode::F9],
        Action::Export(Export::Chart),
        "save the open lesson's (else the compare panel's) chart; a download in the browser",
    ),
    bind(&[KeyCode::Escape], Action::Deselect, "deselect"),
    bind(&[KeyCode::W, KeyCode::Up], Action::PanForward, PAN),
    bind(&[KeyCode::A, KeyCode::Left], Action::PanLeft, PAN),
    bind(&[KeyCode::S, KeyCode::Down], Action::PanBack, PAN),
    bind(&[KeyCode::D, KeyCode::Right], Action::PanRight, PAN),
    bind(&[KeyCode::Q], Action::OrbitLeft, ORBIT),
    bind(&[KeyCode::E], Action::OrbitRight, ORBIT),
    bind(&[KeyCode::Z], Action::ZoomIn, ZOOM),
    bind(&[KeyCode::X], Action::ZoomOut, ZOOM),
];

/// The mouse controls, for the help window (the camera and picking handle them).
pub const MOUSE: &[(&str, &str)] = &[
    ("left drag", "orbit the camera"),
    ("right or middle drag", "pan"),
    ("wheel", "zoom"),
    (
        "click a unit",
        "select it: its query circle, the cells it searched and the units it tested (magenta), its neighbors (yellow), counts in the overlay",
    ),
];

/// The overlay's UI-scale chords, for the help window (the overlay handles
/// them, [`crate::window::ui::ui_scale::shortcuts`]; Cmd instead of Ctrl on macOS).
pub const CHORDS: &[(&str, &str)] = &[(
    "Ctrl+= / Ctrl+- / Ctrl+0",
    "UI scale: larger / smaller / 100% (text and controls of the overlay)",
)];

/// The name of a key as the help window shows it.
pub fn key_name(k: KeyCode) -> &'static str {
    match k {
        KeyCode::Key1 => "1",
        KeyCode::Key2 => "2",
        KeyCode::Key3 => "3",
        KeyCode::LeftBracket => "[",
        KeyCode::RightBracket => "]",
        KeyCode::Backslash => "\\",
        KeyCode::Minus => "-",
        KeyCode::Equal => "=",
        KeyCode::Space => "Space",
        KeyCode::Escape => "Esc",
        KeyCode::Tab => "Tab",
        KeyCode::F1 => "F1",
        KeyCode::F2 => "F2",
        KeyCode::F3 => "F3",
        KeyCode::F4 => "F4",
        KeyCode::F6 => "F6",
        KeyCode::F7 => "F7",
        KeyCode::F8 => "F8",
        KeyCode::F9 => "F9",
        KeyCode::F11 => "F11",
        KeyCode::F12 => "F12",
        KeyCode::PageDown => "Page Down",
        KeyCode::PageUp => "Page Up",
        KeyCode::Enter => "Enter",
        KeyCode::M => "M",
        KeyCode::N => "N",
        KeyCode::Up => "Up",
        KeyCode::Down => "Down",
        KeyCode::Left => "Left",
        KeyCode::Right => "Right",
        KeyCode::A => "A",
        KeyCode::B => "B",
        KeyCode::C => "C",
        KeyCode::D => "D",
        KeyCode::E => "E",
        KeyCode::F => "F",
        KeyCode::G => "G",
        KeyCode::H => "H",
        KeyCode::K => "K",
        KeyCode::O => "O",
        KeyCode::V => "V",
        KeyCode::L => "L",
        KeyCode::Q => "Q",
        KeyCode::R => "R",
        KeyCode::S => "S",
        KeyCode::T => "T",
        KeyCode::U => "U",
        KeyCode::P => "P",
        KeyCode::W => "W",
        KeyCode::X => "X",
        KeyCode::Z => "Z",
        _ => "?",
    }
}

/// The help window's rows, keys first (consecutive bindings with the same
/// help text merged: "1 / 2 / 3"; a binding's alternative keys joined with
/// "or"), then the UI-scale chords and the mouse. Allocates the key labels.
pub fn help_rows() -> Vec<(String, &'static str)> {
    let mut rows: Vec<(String, &'static str)> = Vec::new();
    for b in BINDINGS {
        let keys = b
            .keys
            .iter()
            .map(|&k| key_name(k))
            .collect::<Vec<_>>()
            .join(" or ");
        match rows.last_mut() {
            Some((label, help)) if *help == b.help => {
                label.push_str(" / ");
                label.push_str(&keys);
            }
            _ => rows.push((keys, b.help)),
        }
    }
    rows.extend(CHORDS.iter().map(|&(k, what)| (k.to_string(), what)));
    rows.extend(MOUSE.iter().map(|&(m, what)| (m.to_string(), what)));
    rows
}

/// The once-per-press actions whose key `pressed` reports as pressed this
/// frame, in table order.
///
/// None while a chord modifier is held ([`is_chord`] of `down`): Ctrl + `=`
/// zooms egui's UI and Cmd + Q quits, and neither may also change the radius
/// or do what the plain key does.
pub fn pressed_actions(
    pressed: impl Fn(KeyCode) -> bool,
    down: impl Fn(KeyCode) -> bool,
) -> impl Iterator<Item = Action> {
    let chord = is_chord(down);
    BINDINGS
        .iter()
        .filter(move |b| !chord && !b.action.is_held() && b.keys.iter().any(|&k| pressed(k)))
        .map(|b| b.action)
}

/// Whether any key of a held action is down according to `down` (and no
/// chord modifier is: see [`pressed_actions`]).
pub fn is_held(action: Action, down: impl Fn(KeyCode) -> bool) -> bool {
    !is_chord(&down)
        && BINDINGS
            .iter()
            .any(|b| b.action == action && b.keys.iter().any(|&k| down(k)))
}

/// The modifiers that make a key press a chord for another program or for
/// egui (Ctrl, Alt, Super: the Windows or Command key), never a binding of
/// [`BINDINGS`]. Shift is not one: it changes the character, not the key.
pub const CHORD_MODIFIERS: [KeyCode; 6] = [
    KeyCode::LeftControl,
    KeyCode::RightControl,
    KeyCode::LeftAlt,
    KeyCode::RightAlt,
    KeyCode::LeftSuper,
    KeyCode::RightSuper,
];

/// Whether `mods`, the modifiers held as a key went down, make it a chord
/// (Ctrl, Alt or Super held; see [`CHORD_MODIFIERS`]).
pub fn is_chord_mods(mods: KeyMods) -> bool {
    mods.ctrl || mods.alt || mods.logo
}

/// Whether a key of `presses` (keys that went down this frame with their
/// modifiers, [`crate::window::render::PassInput::keys`]) is `key` pressed alone:
/// without a chord modifier held as it went down. A chord pressed and
/// released within one slow frame is then never taken for the plain key
/// (the modifier is up again by the end of the frame, where
/// [`is_chord`] looks).
pub fn pressed_plain(presses: &[(KeyCode, KeyMods)], key: KeyCode) -> bool {
    presses.iter().any(|&(k, m)| k == key && !is_chord_mods(m))
}

/// Whether a chord modifier ([`CHORD_MODIFIERS`]) is down according to `down`.
pub fn is_chord(down: impl Fn(KeyCode) -> bool) -> bool {
    CHORD_MODIFIERS.iter().any(|&k| down(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice_and_every_key_has_a_name() {
        let mut seen = std::collections::HashSet::new();
        for b in BINDINGS {
            assert!(!b.keys.is_empty(), "{:?} has no key", b.action);
            for &k in b.keys {
                assert!(seen.insert(k as u32), "{k:?} is bound twice");
                assert_ne!(key_name(k), "?", "{k:?} has no name");
            }
        }
    }

    #[test]
    fn the_same_table_drives_keys_and_help() {
        let got: Vec<Action> =
            pressed_actions(|k| k == KeyCode::Key3 || k == KeyCode::Tab, |_| false).collect();
        assert_eq!(
            got,
            vec![
                Action::Strategy(Strategy::SortedGrid),
                Action::ToggleOverlay
            ]
        );
        assert!(is_held(Action::PanLeft, |k| k == KeyCode::Left));
        assert!(!is_held(Action::PanLeft, |k| k == KeyCode::D));
        // Held actions never fire as presses.
        assert_eq!(pressed_actions(|k| k == KeyCode::W, |_| false).count(), 0);

        let rows = help_rows();
        let find = |help: &str| {
            rows.iter()
                .find(|(_, h)| *h == help)
                .map(|(k, _)| k.as_str())
        };
        assert_eq!(find(STRATEGY), Some("1 / 2 / 3"));
        assert_eq!(find(CELL), Some("[ / ]"));
        assert_eq!(find("hide / show the overlay"), Some("H or Tab"));
        assert_eq!(
            find(PAN),
            Some("W or Up / A or Left / S or Down / D or Right")
        );
        assert_eq!(find("pan"), Some("right or middle drag"));
    }

    #[test]
    fn readme_controls_table_matches_the_bindings() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/usage.md"));
        for (keys, help) in help_rows() {
            let row = format!("| {keys} | {help} |");
            assert!(
                readme.contains(&row),
                "docs/usage.md lacks the controls row: {row}"
            );
        }
    }

    #[test]
    fn a_chord_never_triggers_a_plain_key_action() {
        let equal = |k: KeyCode| k == KeyCode::Equal;
        let w = |k: KeyCode| k == KeyCode::W;
        let none = |_: KeyCode| false;
        let plain: Vec<Action> = pressed_actions(equal, none).collect();
        assert_eq!(plain, [Action::RadiusLarger]);
        assert!(is_held(Action::PanForward, w));
        for m in CHORD_MODIFIERS {
            let down = |k: KeyCode| k == m;
            assert_eq!(
                pressed_actions(equal, down).count(),
                0,
                "{m:?} + = must only zoom the UI"
            );
            assert!(!is_held(Action::PanForward, |k| k == m || w(k)));
        }
        // Shift is not a chord modifier.
        let shift = |k: KeyCode| k == KeyCode::LeftShift;
        assert_eq!(pressed_actions(equal, shift).count(), 1);
    }

    #[test]
    fn a_chord_within_one_slow_frame_is_still_a_chord() {
        // Ctrl + = pressed and released inside one frame: at the frame's end
        // Ctrl is up again, but the = went down with Ctrl held.
        let ctrl = KeyMods {
            ctrl: true,
            ..KeyMods::default()
        };
        let presses = [(KeyCode::Equal, ctrl)];
        let up = |_: KeyCode| false;
        let got: Vec<Action> = pressed_actions(|k| pressed_plain(&presses, k), up).collect();
        assert!(got.is_empty(), "{got:?}");
        let alt = KeyMods {
            alt: true,
            ..KeyMods::default()
        };
        assert!(!pressed_plain(&[(KeyCode::R, alt)], KeyCode::R));
        let shift = KeyMods {
            shift: true,
            ..KeyMods::default()
        };
        let plain = [(KeyCode::Equal, KeyMods::default()), (KeyCode::R, shift)];
        let got: Vec<Action> = pressed_actions(|k| pressed_plain(&plain, k), up).collect();
        assert_eq!(got, [Action::RadiusLarger, Action::Respawn]);
    }
}
