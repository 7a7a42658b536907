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

/// A [`fixed`] plot of `labels.len()` bars at x = 0, 1, ...: the x range
/// fits them, and every bar gets a mark and its label (egui_plot's own
/// marks leave some out; a label's " / " parts go on lines of their own so
/// it fits between the bars), y from 0. The compare and lesson charts use it.
pub fn bars<'a>(name: &str, height: f32, labels: Vec<String>) -> Plot<'a> {
    let n = labels.len();
    // One part of a label per line: egui_plot leaves out a label wider than
    // the space between two bars.
    let labels: Vec<String> = labels.iter().map(|l| l.replace(" / ", "\n")).collect();
    fixed(name, height)
        .id(egui_macroquad::egui::Id::new(name))
        .include_y(0.0)
        .include_x(-0.6)
        .include_x(n as f64 - 0.4)
        .x_grid_spacer(move |input: egui_plot::GridInput| {
            (0..n)
                .filter(|&i| (input.bounds.0..=input.bounds.1).contains(&(i as f64)))
                .map(|i| egui_plot::GridMark {
                    value: i as f64,
                    step_size: 1.0,
                })
                .collect()
        })
        .x_axis_formatter(move |m, _| {
            let i = m.value.round();
            if (m.value - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_axis_min_width(30.0)
}
