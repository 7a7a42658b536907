//! The overlay's plots: fixed views that follow their data.

use egui_plot::Plot;

/// A plot named `name`, `height` points tall, that the pointer cannot move:
/// no drag, zoom, scroll, boxed zoom (a right-drag, which is also the
/// camera's pan) or double-click reset. A plot the user has zoomed stops
/// fitting its data for good (egui_plot turns its auto bounds off), so a
/// live graph would freeze: every plot of the overlay starts here.
pub fn fixed<'a>(name: &str, height: f32) -> Plot<'a> {
    Plot::new(name)
        .height(height)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .allow_double_click_reset(false)
}
