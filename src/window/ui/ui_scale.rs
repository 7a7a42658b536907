//! The overlay's UI scale: its range, the Ctrl shortcuts that change it and
//! the panel's small control. The frame loop applies the value as egui's
//! pixels per point, times the display's own scale.

use egui_macroquad::egui;

/// Smallest and largest UI scale (`--ui-scale`, the control, the shortcuts).
pub const UI_SCALE_RANGE: (f32, f32) = (0.5, 3.0);
/// One step of the shortcuts and the -/+ buttons.
pub const UI_SCALE_STEP: f32 = 0.1;

/// `scale` inside [`UI_SCALE_RANGE`], rounded to hundredths; 1 when it is
/// not finite.
pub fn clamp_ui_scale(scale: f32) -> f32 {
    if !scale.is_finite() {
        return 1.0;
    }
    let (lo, hi) = UI_SCALE_RANGE;
    ((scale * 100.0).round() / 100.0).clamp(lo, hi)
}

/// Ctrl+= (or Ctrl++) one step larger, Ctrl+- one step smaller, Ctrl+0 back to
/// 1 (Cmd on macOS), each press of the frame counted, consumed from `ctx`'s
/// input so egui's own zoom keys never see them. Returns whether `scale`
/// changed.
pub fn shortcuts(ctx: &egui::Context, scale: &mut f32) -> bool {
    use egui::{Key, Modifiers};
    let before = *scale;
    ctx.input_mut(|i| {
        // Every press of a slow frame counts.
        let mut presses = |key| i.count_and_consume_key(Modifiers::COMMAND, key) as f32;
        if presses(Key::Num0) > 0.0 {
            *scale = 1.0;
        }
        let steps = presses(Key::Plus) + presses(Key::Equals) - presses(Key::Minus);
        if steps != 0.0 {
            *scale = clamp_ui_scale(*scale + steps * UI_SCALE_STEP);
        }
    });
    *scale != before
}

/// The panel's control: "UI" with - and + buttons around the scale in
/// percent (draggable, or typed).
pub fn control(ui: &mut egui::Ui, scale: &mut f32) {
    const TIP: &str = "Scale of the overlay's text and controls (Ctrl+= / Ctrl+- / Ctrl+0 for 100%; --ui-scale at start): larger for a projector or a recording, smaller to see more of the world.";
    let (lo, hi) = UI_SCALE_RANGE;
    ui.spacing_mut().item_spacing.x = 2.0;
    if ui
        .add_enabled(*scale > lo, egui::Button::new("-").small())
        .on_hover_text("UI scale one step smaller (Ctrl+-).")
        .clicked()
    {
        *scale = clamp_ui_scale(*scale - UI_SCALE_STEP);
    }
    let mut percent = (*scale * 100.0).round();
    let r = ui
        .add(
            egui::DragValue::new(&mut percent)
                .range(lo * 100.0..=hi * 100.0)
                .speed(1.0)
                .suffix("%")
                .update_while_editing(false),
        )
        .on_hover_text(TIP);
    if r.drag_stopped() || (r.changed() && !r.dragged()) {
        *scale = clamp_ui_scale(percent / 100.0);
    }
    if ui
        .add_enabled(*scale < hi, egui::Button::new("+").small())
        .on_hover_text("UI scale one step larger (Ctrl+=).")
        .clicked()
    {
        *scale = clamp_ui_scale(*scale + UI_SCALE_STEP);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_stays_in_range_and_rounds_to_hundredths() {
        assert_eq!(clamp_ui_scale(0.1), 0.5);
        assert_eq!(clamp_ui_scale(9.0), 3.0);
        assert_eq!(clamp_ui_scale(f32::NAN), 1.0);
        assert_eq!(clamp_ui_scale(1.0 + UI_SCALE_STEP), 1.1);
        assert_eq!(clamp_ui_scale(1.234), 1.23);
    }
}
