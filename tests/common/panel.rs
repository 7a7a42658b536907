//! Helpers of the panel tests (egui_kittest): scrolling a window as a
//! mouse wheel does. Included by the window's tests only
//! (`#[path = "common/panel.rs"] mod panel;`): the engine's tests build
//! without egui.

use egui_kittest::Harness;
use egui_macroquad::egui;

/// Scrolls the window under `at` (points) down by three lines, as one
/// notch of a mouse wheel, and runs the harness.
pub fn scroll_down<S>(h: &mut Harness<'_, S>, at: egui::Pos2) {
    h.input_mut().events.push(egui::Event::PointerMoved(at));
    h.input_mut().events.push(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, -3.0),
        modifiers: egui::Modifiers::NONE,
    });
    h.run();
}
