//! Embed mode (`--embed`, `?embed=1`): for an iframe in slides, the scene
//! with one headline number in a corner and the panel closed (H opens
//! it). The number is the lesson step's first measured value when a lesson
//! is followed, else the query phase's mean over the last frames; pending
//! ("…") until it is measured for what is on screen.

use egui_macroquad::egui;

use super::stats::FrameStats;
use crate::lesson::text::{Piece, Value, PENDING};
use crate::sim::Settings;

/// The headline: what it is and its value as shown.
pub fn headline(settings: &Settings, stats: &FrameStats) -> String {
    if let Some(p) = stats.lessons.page.as_ref().filter(|p| p.step < p.steps) {
        let measured = p.text.iter().find_map(|piece| match piece {
            Piece::Value { value, shown, .. }
                if !matches!(value, Value::Pending | Value::NotRun) =>
            {
                Some(shown.clone())
            }
            _ => None,
        });
        return format!(
            "{}: {}",
            p.step_title,
            measured.unwrap_or_else(|| PENDING.to_string())
        );
    }
    let query = if stats.means_current(settings) {
        let m = stats.means();
        format!("{:.2} ms (mean of {} frames)", m.ms[2], m.frames)
    } else {
        PENDING.to_string()
    };
    format!(
        "query {query} · {} · {} units",
        settings.strategy.name(),
        crate::format::thousands(settings.units as u64)
    )
}

/// Draws the headline at the bottom left of the screen.
pub fn show(ctx: &egui::Context, settings: &Settings, stats: &FrameStats) {
    egui::Area::new(egui::Id::new("embed headline"))
        .anchor(egui::Align2::LEFT_BOTTOM, [10.0, -10.0])
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(headline(settings, stats))
                            .strong()
                            .size(18.0),
                    )
                    .extend(),
                );
                ui.add(
                    egui::Label::new(
                        egui::RichText::new("Spatial Query Lab · H: the panel").weak(),
                    )
                    .extend(),
                );
            });
        });
}
