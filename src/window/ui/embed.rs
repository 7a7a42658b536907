//! Embed mode (`--embed`, `?embed=1`): for an iframe in slides, the scene
//! with one headline number in a corner and the panel closed (H opens
//! it). On a lesson step whose settings are on screen the number is the
//! step's query time as the lesson measured it (its rounds' range); else
//! the query phase's mean over the last frames of what is on screen.
//! Pending ("…") until it is measured.

use egui_macroquad::egui;

use super::stats::FrameStats;
use crate::engine::sim::Settings;
use crate::teaching::lesson::text::PENDING;

/// The headline: what it is and its value as shown.
pub fn headline(settings: &Settings, stats: &FrameStats) -> String {
    let step = stats
        .lessons
        .page
        .as_ref()
        .filter(|p| p.step < p.steps && p.differs.is_empty());
    if let Some((p, time)) = step.and_then(|p| Some((p, p.query_time.as_ref()?))) {
        return format!("{}: query {time} (the lesson's rounds)", p.step_title);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::teaching::lesson::session::LessonPage;

    fn on_step(query_time: Option<&str>, differs: Vec<&'static str>) -> FrameStats {
        let mut stats = FrameStats::default();
        stats.lessons.page = Some(LessonPage {
            step: 1,
            steps: 3,
            step_title: "Uniform grid".into(),
            query_time: query_time.map(str::to_string),
            differs,
            ..LessonPage::default()
        });
        stats
    }

    /// The step's measured query time while its settings are on screen;
    /// the live frames' (pending here: none measured) once they differ,
    /// or where the step has no query time.
    #[test]
    fn the_headline_is_the_steps_number_only_for_the_steps_settings() {
        let s = Settings::default();
        let h = headline(&s, &on_step(Some("0.52 ms (0.50–0.55)"), Vec::new()));
        assert_eq!(
            h,
            "Uniform grid: query 0.52 ms (0.50–0.55) (the lesson's rounds)"
        );
        for stats in [
            on_step(Some("0.52 ms (0.50–0.55)"), vec!["units"]),
            on_step(None, Vec::new()),
            FrameStats::default(),
        ] {
            let h = headline(&s, &stats);
            assert!(h.starts_with(&format!("query {PENDING} · ")), "{h}");
        }
    }
}
