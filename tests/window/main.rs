//! The window's tests, one binary: the overlay, compare and lesson panels
//! through egui_kittest, and the real window under Xvfb (gui_smoke).

#[path = "../common/panel.rs"]
mod panel;

mod compare_panel;
mod gui_smoke;
mod help_window;
mod lesson_panel;
mod overlay;
mod predict_overlay;
