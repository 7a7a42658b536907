//! The window (the `window` feature): the frame loop ([`app`]), the egui
//! overlay's widgets ([`ui`]) and the render pipeline ([`render`]). The
//! only part of the lab that touches macroquad and egui.

pub mod app;
pub mod render;
pub mod ui;
