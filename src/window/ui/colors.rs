//! The overlay's shared colors: notices and the frame's phases, one
//! definition for every panel that shows them.

use egui_macroquad::egui;

/// Color of a notice: something the user should read before trusting a
/// number (a busy machine, a skipped row, a setting left unapplied).
pub(crate) const NOTICE_COLOR: egui::Color32 = egui::Color32::from_rgb(255, 190, 80);

/// Colors of the frame's phases (move, rebuild, query, apply) in the
/// timings graph, its legend and the compare panel's bars.
pub(crate) const PHASE_COLORS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(230, 90, 80),
    egui::Color32::from_rgb(90, 150, 255),
    egui::Color32::from_rgb(160, 220, 80),
    egui::Color32::from_rgb(220, 110, 230),
];
