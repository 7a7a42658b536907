//! The compare panel driven headless through egui (egui_kittest): its rows
//! say how they compare with the baseline, and its buttons remove rows,
//! pick the baseline and start a measurement, as the frame loop applies them.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use egui_macroquad::egui;

use spatial_query_lab::measure::compare::Comparison;
use spatial_query_lab::measure::spread::{PhaseMs, PhaseSpreads, Spread};
use spatial_query_lab::measure::{Measurement, Round};
use spatial_query_lab::sim::Settings;
use spatial_query_lab::ui::compare::CompareAction;
use spatial_query_lab::ui::stats::FrameStats;
use spatial_query_lab::ui::{Overlay, ViewOptions};

struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
    /// Every compare action, in order.
    done: Vec<CompareAction>,
}

/// A row labeled `label` whose step's median is `ms` (all query), over
/// frames from `ms` to `max_ms`.
fn row(label: &str, ms: f64, max_ms: f64) -> Measurement {
    let s = Spread {
        median: ms,
        min: ms,
        max: max_ms,
    };
    let round = Round {
        median_ms: PhaseMs {
            query: ms,
            total: ms,
            ..Default::default()
        },
        candidates: 400,
        neighbors: 100,
    };
    let mut m = Measurement::from_rounds(label, Settings::default(), 15, vec![round]);
    m.settle = 2;
    m.cell_size = None;
    m.frame_ms = PhaseSpreads {
        query: s,
        total: s,
        ..Default::default()
    };
    m
}

/// The overlay with the compare panel open on `comparison`; compare actions
/// are applied to it as the frame loop does.
fn harness(comparison: Comparison) -> Harness<'static, State> {
    let state = State {
        overlay: Overlay::default(),
        settings: Settings::default(),
        view: ViewOptions {
            show_compare: true,
            ..ViewOptions::default()
        },
        stats: FrameStats {
            cores: 2,
            comparison,
            ..Default::default()
        },
        done: Vec::new(),
    };
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_state(
            |ctx, s: &mut State| {
                let a = s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
                for act in a.compare {
                    let c = &mut s.stats.comparison;
                    match act {
                        CompareAction::Remove(i) => c.remove(i),
                        CompareAction::Baseline(i) => c.set_baseline(i),
                        CompareAction::MoveUp(i) => c.move_up(i),
                        CompareAction::Clear => c.clear(),
                        _ => {}
                    }
                    s.done.push(act);
                }
            },
            state,
        )
}

fn three_rows() -> Comparison {
    let mut c = Comparison::default();
    c.add(row("Naive", 580.0, 600.0));
    c.add(row("Grid", 10.0, 21.0));
    c.add(row("SortedGrid", 5.0, 5.5));
    c
}

fn has_label(h: &Harness<'_, State>, text: &str) -> bool {
    h.query_by_label_contains(text).is_some()
}

#[test]
fn rows_say_how_they_compare_and_a_busy_one_says_so() {
    let mut h = harness(three_rows());
    h.run();
    assert!(has_label(&h, "Naive: baseline"));
    assert!(has_label(&h, "Grid: 58x faster than Naive"));
    assert!(has_label(&h, "SortedGrid: 116x faster than Naive"));
    // Grid's frames spread 2.1x: flagged; the others not.
    assert!(has_label(&h, "spread 2.1x: the machine was busy"));
    assert_eq!(
        h.query_all_by_label_contains("the machine was busy")
            .count(),
        1
    );
    assert!(has_label(&h, "This machine: "));
}

#[test]
fn picking_a_baseline_normalizes_every_row_to_it() {
    let mut h = harness(three_rows());
    h.run();
    let radios: Vec<_> = h.get_all_by_role(Role::RadioButton).collect();
    assert_eq!(radios.len(), 3, "one baseline choice per row");
    radios[1].click();
    h.run();
    assert_eq!(h.state().done, [CompareAction::Baseline(1)]);
    assert!(has_label(&h, "Grid: baseline"));
    assert!(has_label(&h, "Naive: 58x slower than Grid"));
    assert!(has_label(&h, "SortedGrid: 2.0x faster than Grid"));
    let bar = h.state().stats.comparison.normalized(1).unwrap();
    assert!((bar.iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn rows_are_removed_and_the_panel_measures_on_request() {
    let mut h = harness(three_rows());
    h.run();
    // The rows' remove buttons (the panel has no other "x" here).
    let removes: Vec<_> = h.get_all_by_label("x").collect();
    assert_eq!(removes.len(), 3);
    removes[0].click();
    h.run();
    assert_eq!(h.state().done, [CompareAction::Remove(0)]);
    assert_eq!(h.state().stats.comparison.rows().len(), 2);
    // The baseline moved to the new first row.
    assert!(has_label(&h, "Grid: baseline"));
    assert!(!has_label(&h, "faster than Naive"));
    h.get_by_label("Measure current settings").click();
    h.run();
    assert_eq!(h.state().done.last(), Some(&CompareAction::Measure));
    h.get_by_label("Clear").click();
    h.run();
    assert!(h.state().stats.comparison.is_empty());
    assert!(has_label(&h, "No rows yet."));
}
