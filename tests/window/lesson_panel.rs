//! The lessons panel driven headless through egui (egui_kittest), with a
//! lesson [`Session`] applied as the frame loop applies it: the first
//! lesson is two clicks away and sees it measured (every step,
//! interleaved rounds, on fresh simulations, as the window's quiet
//! measurement does), next and back step through it keeping what was
//! measured, a setting changed shows the notice and its restore button, and
//! at projector sizes the panel's controls stay reachable beside the memory
//! view.

use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

use crate::panel;
use egui_macroquad::egui;
use panel::scroll_down;

use spatial_query_lab::engine::sim::Settings;
use spatial_query_lab::engine::spatial::Strategy;
use spatial_query_lab::measure::run::Job;
use spatial_query_lab::settings::budget::Budget;
use spatial_query_lab::teaching::lesson::bundled;
use spatial_query_lab::teaching::lesson::predict::Guess;
use spatial_query_lab::teaching::lesson::session::{Entered, Session};
use spatial_query_lab::teaching::lesson::{Lesson, LessonOptions};
use spatial_query_lab::window::ui::lesson::LessonAction;
use spatial_query_lab::window::ui::memory_view::MemoryView;
use spatial_query_lab::window::ui::stats::FrameStats;
use spatial_query_lab::window::ui::{Overlay, ViewOptions};

/// A quick lesson run: few units, frames and rounds.
const QUICK: LessonOptions = LessonOptions {
    max_units: Some(1_500),
    frames: Some(1),
    rounds: Some(3),
};

struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
    session: Option<Session>,
    /// The lesson's measurement, not yet run ([`State::measure`] runs it).
    job: Option<Job>,
    budget: Budget,
    /// Opened instead of the bundled lesson the list's button names.
    custom: Option<Lesson>,
}

impl State {
    fn apply(&mut self, e: Option<Entered>) {
        if let Some(e) = e {
            self.settings = e.settings;
        }
    }

    fn refresh(&mut self) {
        let measuring = self
            .job
            .as_ref()
            .map(|j| (j.progress(), "A, round 1 of 3".to_string()));
        self.stats.lessons.page = self
            .session
            .as_ref()
            .map(|s| s.page(&self.settings, measuring));
    }

    /// Runs the lesson's measurement to the end and hands it back, as the
    /// frame loop does when its quiet measurement finishes.
    fn measure(&mut self) {
        if let (Some(mut job), Some(s)) = (self.job.take(), self.session.as_mut()) {
            job.run();
            s.finish(job.tasks());
        }
        self.refresh();
    }
}

fn harness_sized(size: egui::Vec2, scale: f32) -> Harness<'static, State> {
    let lessons = bundled::all().unwrap();
    let state = State {
        overlay: Overlay::default(),
        settings: Settings::default(),
        view: ViewOptions::default(),
        stats: FrameStats {
            cores: 2,
            lessons: spatial_query_lab::window::ui::lesson::LessonPanel {
                lessons: lessons
                    .into_iter()
                    .map(|l| (l.name, l.title, l.steps.len()))
                    .collect(),
                ..Default::default()
            },
            ..Default::default()
        },
        session: None,
        job: None,
        budget: Budget::default(),
        custom: None,
    };
    Harness::builder()
        .with_size(size)
        .with_pixels_per_point(scale)
        .build_state(
            |ctx, s: &mut State| {
                let a = s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
                for act in a.lesson() {
                    let budget = s.budget;
                    let e = match (act, s.session.as_mut()) {
                        (LessonAction::Open(i), _) => {
                            let name = bundled::names().nth(i).unwrap();
                            let lesson = match s.custom.clone() {
                                Some(l) => l,
                                None => bundled::get(name).unwrap().unwrap(),
                            };
                            let mut session = Session::new(lesson, QUICK);
                            let e = session.enter(0, &budget);
                            s.job = Some(Job::new(session.tasks(), 1.0 / 60.0, false));
                            s.session = Some(session);
                            e
                        }
                        (LessonAction::Guess(g), Some(x)) => {
                            x.guess(x.step(), Guess::Number(g));
                            None
                        }
                        (LessonAction::Reveal, Some(x)) => {
                            x.guess(x.step(), Guess::Skipped);
                            None
                        }
                        (LessonAction::Next, Some(x)) => x.go(1, &budget),
                        (LessonAction::Back, Some(x)) => x.go(-1, &budget),
                        (LessonAction::Restore, Some(x)) => x.enter(x.step(), &budget),
                        (LessonAction::Measure, Some(x)) => {
                            s.job = Some(Job::new(x.tasks(), 1.0 / 60.0, false));
                            None
                        }
                        (LessonAction::Cancel, Some(_)) => {
                            s.job = None;
                            None
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

fn harness() -> Harness<'static, State> {
    harness_sized(egui::vec2(1280.0, 800.0), 1.0)
}

fn has(h: &Harness<'_, State>, text: &str) -> bool {
    h.query_by_label_contains(text).is_some()
}

fn page_text(h: &Harness<'_, State>) -> String {
    spatial_query_lab::teaching::lesson::text::plain(
        &h.state().stats.lessons.page.as_ref().unwrap().text,
    )
}

#[test]
fn two_clicks_from_launch_reach_the_first_lesson_measured() {
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
    assert!(page.measuring.is_some(), "measuring as it opens");
    assert!(has(&h, "The scene is paused so drawing does not compete"));
    assert!(page_text(&h).contains('…'), "pending until measured");
    h.state_mut().measure();
    h.run();
    let text = page_text(&h);
    assert!(text.contains("its query took"), "{text}");
    assert!(!text.contains('…'), "{text}");
    assert!(has(
        &h,
        "Measured in 3 interleaved rounds of 1 counted frame,"
    ));
}

/// Opens the first lesson of the list, measures it and goes to step 2.
fn open_measured_at_step_two(h: &mut Harness<'static, State>) {
    h.state_mut().view.show_lessons = true;
    h.run();
    h.get_by_label("1. Naive, grid, sorted grid").click();
    h.run();
    h.state_mut().measure();
    h.run();
    h.get_by_label("Next ⏵").click();
    h.run();
    h.run();
}

#[test]
fn next_and_back_keep_what_was_measured() {
    let mut h = harness();
    open_measured_at_step_two(&mut h);
    assert!(has(&h, "Step 2 of 3: Uniform grid"));
    assert_eq!(h.state().settings.strategy, Strategy::Grid);
    // The step asks first; its text shows once the question is answered.
    assert!(page_text(&h).is_empty());
    h.get_by_label("Show the answer").click();
    h.run();
    h.run();
    let text = page_text(&h);
    let verdicts = ["x faster (", "x slower (", "beyond this machine's noise"];
    assert!(
        verdicts.iter().any(|v| text.contains(v)),
        "the grid against Naive is a verdict: {text}"
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
    for _ in 0..2 {
        h.get_by_label("Next ⏵").click();
        h.run();
    }
    // Step 3 asks: Page Down's button reveals first, then moves on.
    h.get_by_label("Show answer ⏵").click();
    h.run();
    h.get_by_label("Summary ⏵").click();
    h.run_steps(8);
    assert!(has(&h, "What it showed"));
    let text = page_text(&h);
    assert!(text.contains("Against the naive scan"), "{text}");
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert_eq!(page.chart.rows().len(), 3);
    assert!(page.chart.all_interleaved(), "one plan measured all three");
}

#[test]
fn a_setting_changed_shows_the_notice_and_restore_puts_it_back() {
    let mut h = harness();
    h.state_mut().view.show_lessons = true;
    h.run();
    h.get_by_label("1. Naive, grid, sorted grid").click();
    h.run();
    h.state_mut().measure();
    h.get_by_label("SortedGrid").click();
    h.run();
    h.run();
    assert_eq!(h.state().settings.strategy, Strategy::SortedGrid);
    assert!(has(&h, "Your settings differ from this step's (strategy"));
    h.get_by_label("Restore step settings").click();
    h.run();
    h.run();
    assert_eq!(h.state().settings.strategy, Strategy::Naive);
    assert!(!has(&h, "Your settings differ"));
}

/// Clicks the button labeled `label` at its center as a pointer would,
/// scrolling the window under `scroll_at` until the button is on screen;
/// returns after the click. Panics when it never gets there.
fn reach(h: &mut Harness<'_, State>, label: &str, scroll_at: egui::Pos2, screen: egui::Vec2) {
    for _ in 0..40 {
        let inside = {
            let node = h.get_by_label(label);
            let b = node.raw_bounds().expect("bounds");
            let (cx, cy) = ((b.x0 + b.x1) / 2.0, (b.y0 + b.y1) / 2.0);
            cx > 0.0 && cy > 0.0 && cx < f64::from(screen.x) && cy < f64::from(screen.y) - 4.0
        };
        if inside {
            h.get_by_label(label).simulate_click();
            h.run();
            return;
        }
        scroll_down(h, scroll_at);
    }
    panic!("\"{label}\" never came on screen");
}

/// At 1024x768 with the UI at 1.5x, and at 1280x720 at 2x, the lessons
/// panel docks beside the memory view (never over it) and its Next button
/// is reached with a pointer click (scrolling the panel if it must).
#[test]
fn at_projector_sizes_next_is_reached_with_the_memory_view_open() {
    for (px, scale) in [
        (egui::vec2(1024.0, 768.0), 1.5),
        (egui::vec2(1280.0, 720.0), 2.0),
    ] {
        let size = px / scale;
        let mut h = harness_sized(size, scale);
        {
            let s = h.state_mut();
            s.view.show_lessons = true;
            s.view.show_memory = true;
            s.stats.memory = Some(MemoryView::default());
        }
        h.run();
        h.get_by_label("1. Naive, grid, sorted grid").click();
        h.run();
        h.state_mut().measure();
        h.run();
        // The windows: the largest node of each title (the first row's
        // button is labeled "Lessons" too).
        let largest = |h: &Harness<'_, State>, label: &str| {
            h.get_all_by_label(label)
                .filter_map(|n| n.raw_bounds())
                .max_by(|a, b| a.area().total_cmp(&b.area()))
                .unwrap()
        };
        let memory = largest(&h, "Memory view");
        let lessons = largest(&h, "Lessons");
        assert!(
            lessons.y0 >= memory.y1 - 1.0,
            "{size:?}: the lessons panel ({lessons:?}) starts below the memory view ({memory:?})"
        );
        let at = egui::pos2(
            ((lessons.x0 + lessons.x1) / 2.0) as f32,
            (lessons.y1 - 30.0) as f32,
        );
        reach(&mut h, "Next ⏵", at, size);
        assert!(has(&h, "Step 2 of 3"), "{size:?}: Next was clicked");
    }
}

/// At 1280x800 a summary page whose text and chart fit the screen shows
/// every button without scrolling: the panel grows to the column's height
/// before it scrolls (its buttons were cut off below a panel of fixed
/// height, behind a scroll bar that shows only on hover).
#[test]
fn a_summary_that_fits_the_column_shows_all_its_buttons() {
    let mut h = harness();
    h.state_mut().view.show_lessons = true;
    h.run();
    h.get_by_label("2. SIMD lanes: 1, 4, 8, 16 distance tests at once")
        .click();
    h.run();
    h.state_mut().measure();
    h.run();
    // Page Down to the summary (a question takes one more: its reveal).
    for _ in 0..12 {
        let budget = h.state().budget;
        let e = h.state_mut().session.as_mut().unwrap().go(1, &budget);
        h.state_mut().apply(e);
        h.run();
    }
    h.run();
    assert!(has(&h, "What it showed"), "on the summary page");
    let b = h.get_by_label("All lessons").raw_bounds().unwrap();
    assert!(b.y1 < 790.0, "All lessons at {b:?}: below the window");
    let lessons = h
        .get_all_by_label("Lessons")
        .filter_map(|n| n.raw_bounds())
        .max_by(|a, b| a.area().total_cmp(&b.area()))
        .unwrap();
    assert!(
        b.y1 <= lessons.y1,
        "All lessons ({b:?}) is outside the panel ({lessons:?})"
    );
}

/// A lesson with a typed prediction and one with choices.
const PREDICTING: &str = r#"
title = "Predict"
[settings]
units = 1500
[[steps]]
id = "naive"
title = "Naive"
settings = { strategy = "naive" }
text = "Naive took {query_ms} ms."
[[steps]]
id = "grid"
title = "Grid"
settings = { strategy = "grid" }
notes = "Ask who expects less than 10x."
predict = { question = "How many times faster is the grid's query?", answer = "{naive.query_ms / grid.query_ms}", unit = "x" }
text = "Grid: {verdict(grid.query_ms, naive.query_ms)}."
[[steps]]
id = "sorted"
title = "Sorted"
settings = { strategy = "sorted-grid" }
predict = { question = "And the sorted grid against the grid?", answer = "{grid.query_ms / sorted.query_ms}", unit = "x", choices = [1, 2, 4] }
text = "Sorted: {verdict(sorted.query_ms, grid.query_ms)}."
"#;

/// A prediction step asks first and hides its text; a typed number is
/// taken, the measured answer is revealed beside it with its range, a
/// second question is answered with a choice, and the summary page lists
/// both guesses against their answers. Page Down on an open question
/// reveals it without a guess before it moves on.
#[test]
fn a_prediction_asks_takes_a_number_reveals_the_answer_and_the_summary_lists_it() {
    let mut h = harness();
    h.state_mut().custom = Some(Lesson::parse(PREDICTING, "p.toml", "p").unwrap());
    open_measured_at_step_two(&mut h);
    assert!(has(&h, "Step 2 of 3: Grid"));
    assert!(has(&h, "How many times faster is the grid's query?"));
    assert!(page_text(&h).is_empty(), "the text waits for the guess");
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert_eq!(page.notes, "Ask who expects less than 10x.");
    assert_eq!(page.next_title, "Sorted");
    h.get_by_role(egui::accesskit::Role::TextInput).click();
    h.run();
    h.get_by_role(egui::accesskit::Role::TextInput)
        .type_text("3.5");
    h.run();
    h.get_by_label("Answer").click();
    h.run();
    h.run();
    let page = h.state().stats.lessons.page.clone().unwrap();
    let q = page.predict.clone().unwrap();
    assert_eq!(q.guess, Some(Guess::Number(3.5)));
    let reveal = q.reveal.unwrap();
    assert!(
        reveal.starts_with("you guessed 3.5x; measured "),
        "{reveal}"
    );
    assert!(reveal.contains("x ("), "the measured range: {reveal}");
    assert!(has(&h, "you guessed 3.5x; measured"));
    assert!(page_text(&h).starts_with("Grid: "), "{}", page_text(&h));
    h.get_by_label("Next ⏵").click();
    h.run();
    h.run();
    assert!(has(&h, "And the sorted grid against the grid?"));
    assert!(has(&h, "Show answer ⏵"), "Next reveals first");
    h.get_by_label("2x").click();
    h.run();
    h.run();
    assert!(has(&h, "you guessed 2x; measured"));
    h.get_by_label("Summary ⏵").click();
    // The summary's plot scrolls in a panel that settles over a few frames.
    h.run_steps(8);
    let page = h.state().stats.lessons.page.clone().unwrap();
    assert_eq!(page.predictions.len(), 2);
    assert_eq!(page.predictions[0].step, 2);
    assert!(page.predictions[0]
        .reveal
        .starts_with("you guessed 3.5x; measured "));
    assert!(page.predictions[1]
        .reveal
        .starts_with("you guessed 2x; measured "));
    assert!(has(&h, "Predictions"));
    assert!(has(&h, "How many times faster is the grid's query?"));
    // Page Down (the session's go) on an open question reveals it and stays.
    let budget = h.state().budget;
    let s = h.state_mut().session.as_mut().unwrap();
    s.enter(0, &budget);
    let mut fresh = Session::new(Lesson::parse(PREDICTING, "p.toml", "p").unwrap(), QUICK);
    fresh.enter(1, &budget);
    assert!(fresh.asking());
    assert!(fresh.go(1, &budget).is_none(), "reveals, stays");
    assert_eq!((fresh.step(), fresh.guessed(1)), (1, Some(Guess::Skipped)));
    assert!(fresh.go(1, &budget).is_some(), "then moves on");
    assert_eq!(fresh.step(), 2);
}
