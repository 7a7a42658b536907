//! The lessons panel driven headless through egui (egui_kittest), with a
//! lesson [`Session`] applied as the frame loop applies it: a newcomer
//! reaches the first lesson's first measurement in two clicks, next and
//! back step through it keeping what was measured, and a setting changed
//! mid-step shows the notice and its restore button.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use egui_macroquad::egui;

use spatial_query_lab::lesson::bundled;
use spatial_query_lab::lesson::session::{Entered, Session};
use spatial_query_lab::lesson::LessonOptions;
use spatial_query_lab::measure::FrameRecord;
use spatial_query_lab::sim::budget::Budget;
use spatial_query_lab::sim::{Settings, StepStats};
use spatial_query_lab::spatial::{QueryStats, Strategy};
use spatial_query_lab::ui::lesson::LessonAction;
use spatial_query_lab::ui::stats::FrameStats;
use spatial_query_lab::ui::{Overlay, ViewOptions};

struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
    session: Option<Session>,
    budget: Budget,
}

impl State {
    fn apply(&mut self, e: Option<Entered>) {
        if let Some(e) = e {
            self.settings = e.settings;
        }
    }

    fn refresh(&mut self) {
        self.stats.lessons.page = self.session.as_ref().map(|s| s.page(&self.settings, None));
    }

    /// One completed step of the live simulation with the current
    /// settings, `query_ms` long, as the frame loop hands it over.
    fn step(&mut self, query_ms: f64) {
        let st = StepStats {
            query_s: query_ms * 1e-3,
            query: QueryStats {
                candidates: 1_000,
                neighbors: 100,
            },
            threads: 1,
            ..Default::default()
        };
        let frame = FrameRecord::headless(&st, self.settings.units, 0, 0);
        if let Some(s) = self.session.as_mut() {
            let sweep = s.record(frame, &self.settings, Default::default);
            assert!(!sweep, "the first lesson has no sweep step");
        }
        self.refresh();
    }
}

fn harness() -> Harness<'static, State> {
    let lessons = bundled::all().unwrap();
    let state = State {
        overlay: Overlay::default(),
        settings: Settings::default(),
        view: ViewOptions::default(),
        stats: FrameStats {
            cores: 2,
            lessons: spatial_query_lab::ui::lesson::LessonPanel {
                lessons: lessons
                    .into_iter()
                    .map(|l| (l.name, l.title, l.steps.len()))
                    .collect(),
                ..Default::default()
            },
            ..Default::default()
        },
        session: None,
        budget: Budget::default(),
    };
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_state(
            |ctx, s: &mut State| {
                let a = s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
                for act in a.lesson {
                    let budget = s.budget;
                    let e = match (act, s.session.as_mut()) {
                        (LessonAction::Open(i), _) => {
                            let name = bundled::names().nth(i).unwrap();
                            let lesson = bundled::get(name).unwrap().unwrap();
                            let mut session = Session::new(lesson, LessonOptions::default());
                            let e = session.enter(0, &budget, false);
                            s.session = Some(session);
                            e
                        }
                        (LessonAction::Next, Some(x)) => x.go(1, &budget),
                        (LessonAction::Back, Some(x)) => x.go(-1, &budget),
                        (LessonAction::Restore | LessonAction::Measure, Some(x)) => {
                            x.enter(x.step(), &budget, true)
                        }
                        _ => None,
                    };
                    s.apply(e);
                }
                s.refresh();
            },
            state,
        )
}

fn has(h: &Harness<'_, State>, text: &str) -> bool {
    h.query_by_label_contains(text).is_some()
}

/// Steps the live simulation until the step's measurement is done.
fn measure(h: &mut Harness<'_, State>, query_ms: f64) {
    for _ in 0..40 {
        h.state_mut().step(query_ms);
        h.run();
        let page = h.state().stats.lessons.page.clone().unwrap();
        if page.measured {
            return;
        }
    }
    panic!("the step was never measured");
}

#[test]
fn two_clicks_from_launch_reach_the_first_measurement() {
    let mut h = harness();
    h.run();
    assert!(has(&h, "New here? Press F2 for guided lessons"));
    h.get_by_label("Open lessons").click();
    h.run();
    assert!(has(&h, "Pick a lesson"));
    assert!(
        !has(&h, "New here?"),
        "the hint goes once the lessons are open"
    );
    h.get_by_label("1. Naive, grid, sorted grid").click();
    h.run();
    h.run();
    assert!(has(&h, "Step 1 of 3: Naive: test every pair"));
    assert_eq!(h.state().settings.strategy, Strategy::Naive);
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert_eq!(page.measuring, Some(0.0), "measuring as it opens");
    assert!(has(&h, "measuring on this machine"));
    measure(&mut h, 58.0);
    assert!(has(&h, "its query took"));
    assert!(has(&h, "58.0"), "the text quotes the measured median");
}

#[test]
fn next_and_back_keep_what_was_measured() {
    let mut h = harness();
    h.state_mut().view.show_lessons = true;
    h.run();
    h.get_by_label("1. Naive, grid, sorted grid").click();
    h.run();
    measure(&mut h, 58.0);
    h.get_by_label("Next ⏵").click();
    h.run();
    h.run();
    assert!(has(&h, "Step 2 of 3: Uniform grid"));
    assert_eq!(h.state().settings.strategy, Strategy::Grid);
    measure(&mut h, 2.0);
    let text = spatial_query_lab::lesson::text::plain(
        &h.state().stats.lessons.page.as_ref().unwrap().text,
    );
    assert!(
        text.contains("29x less than Naive's"),
        "58 / 2, quoted from the rows: {text}"
    );
    h.get_by_label("⏴ Back").click();
    h.run();
    h.run();
    assert!(has(&h, "Step 1 of 3"));
    assert_eq!(h.state().settings.strategy, Strategy::Naive);
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert!(
        page.measured && page.measuring.is_none(),
        "not measured again"
    );
    // Next twice more: the summary, with the chart of the measured steps.
    h.get_by_label("Next ⏵").click();
    h.run();
    h.get_by_label("Next ⏵").click();
    h.run();
    measure(&mut h, 1.0);
    h.get_by_label("Summary ⏵").click();
    h.run();
    h.run();
    assert!(has(&h, "What it showed"));
    let text = spatial_query_lab::lesson::text::plain(
        &h.state().stats.lessons.page.as_ref().unwrap().text,
    );
    assert!(
        text.contains("grid ran 29x less query time") && text.contains("sorted grid 58x"),
        "{text}"
    );
    assert_eq!(
        h.state()
            .stats
            .lessons
            .page
            .as_ref()
            .unwrap()
            .chart
            .rows()
            .len(),
        3
    );
}

#[test]
fn a_setting_changed_mid_step_shows_the_notice_and_restore_puts_it_back() {
    let mut h = harness();
    h.state_mut().view.show_lessons = true;
    h.run();
    h.get_by_label("1. Naive, grid, sorted grid").click();
    h.run();
    h.state_mut().step(50.0);
    h.run();
    // The user picks SortedGrid in the overlay while Naive is measured.
    h.get_by_label("SortedGrid").click();
    h.run();
    h.run();
    assert_eq!(h.state().settings.strategy, Strategy::SortedGrid);
    assert!(has(&h, "Your settings differ from this step's (strategy"));
    // The measurement stopped: steps with other settings are not counted.
    h.state_mut().step(1.0);
    h.run();
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert_eq!(page.measuring, None);
    assert!(!page.measured);
    h.get_by_label("Restore step settings").click();
    h.run();
    h.run();
    assert_eq!(h.state().settings.strategy, Strategy::Naive);
    assert!(!has(&h, "Your settings differ"));
    measure(&mut h, 40.0);
    assert!(has(&h, "40.0"));
}
