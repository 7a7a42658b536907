//! The overlay while a lesson's question is open: the numbers that would
//! answer it (the timings, the step's sweep) wait for the answer.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use egui_macroquad::egui;

use spatial_query_lab::engine::sim::Settings;
use spatial_query_lab::teaching::lesson::predict::Guess;
use spatial_query_lab::teaching::lesson::session::{LessonPage, PredictPage};
use spatial_query_lab::window::ui::stats::FrameStats;
use spatial_query_lab::window::ui::{Overlay, ViewOptions};

/// The overlay, every section open, over `stats`.
fn harness(stats: FrameStats) -> Harness<'static, (Overlay, Settings, ViewOptions, FrameStats)> {
    let state = (
        Overlay::expanded(),
        Settings::default(),
        ViewOptions::default(),
        stats,
    );
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_state(
            |ctx, (o, s, v, st): &mut (Overlay, Settings, ViewOptions, FrameStats)| {
                o.show(ctx, s, v, st);
            },
            state,
        )
}

/// Stats on a lesson step whose question has the answer `guess`.
fn on_question(guess: Option<Guess>) -> FrameStats {
    let mut stats = FrameStats::default();
    stats.lessons.page = Some(LessonPage {
        step: 1,
        steps: 3,
        step_title: "Uniform grid".into(),
        predict: Some(PredictPage {
            question: "The naive scan's time over the grid's?".into(),
            unit: "x".into(),
            guess,
            ..PredictPage::default()
        }),
        ..LessonPage::default()
    });
    stats
}

const HIDDEN: &str = "Hidden while the lesson's question is open";

/// True when a text of the overlay starts with `prefix`.
fn shows(h: &Harness<'_, impl Sized>, prefix: &str) -> bool {
    h.get_all_by_role(Role::Label)
        .filter_map(|n| n.value())
        .any(|t| t.trim().starts_with(prefix))
}

#[test]
fn the_timings_wait_for_the_answer() {
    let mut h = harness(on_question(None));
    h.run();
    assert!(shows(&h, HIDDEN));
    assert!(
        !shows(&h, "rebuild") && !shows(&h, "step "),
        "no timing while asking"
    );
    let mut h = harness(on_question(Some(Guess::Skipped)));
    h.run();
    assert!(!shows(&h, HIDDEN));
    assert!(
        shows(&h, "rebuild") && shows(&h, "step "),
        "the timings once answered"
    );
}
