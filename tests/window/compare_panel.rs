//! The compare panel driven headless through egui (egui_kittest): its rows
//! say how they compare with the baseline, and its buttons remove rows,
//! pick the baseline and start a measurement, as the frame loop applies them.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;

use crate::panel;
use egui_macroquad::egui;
use panel::scroll_down;

use spatial_query_lab::engine::sim::Settings;
use spatial_query_lab::measure::compare::Comparison;
use spatial_query_lab::measure::spread::{PhaseMs, PhaseSpreads, Spread};
use spatial_query_lab::measure::{Measurement, Round};
use spatial_query_lab::window::ui::compare::CompareAction;
use spatial_query_lab::window::ui::stats::FrameStats;
use spatial_query_lab::window::ui::{Overlay, ViewOptions};

struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
    /// Every compare action, in order.
    done: Vec<CompareAction>,
}

/// A row labeled `label` whose step's median is `ms` (all query), over 5
/// rounds within 1% of it, and frames from `ms` to `max_ms`.
fn row(label: &str, ms: f64, max_ms: f64) -> Measurement {
    let rounds = [1.0, 1.01, 0.99, 1.005, 0.995]
        .map(|f| Round {
            median_ms: PhaseMs {
                query: ms * f,
                total: ms * f,
                ..Default::default()
            },
            candidates: 400,
            neighbors: 100,
        })
        .to_vec();
    let mut m = Measurement::from_rounds(label, Settings::default(), 15, rounds);
    m.settle = 2;
    m.cell_size = None;
    let s = Spread {
        median: ms,
        min: ms,
        max: max_ms,
    };
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
    harness_sized(comparison, egui::vec2(1280.0, 800.0), 1.0)
}

/// [`harness`] on a screen of `size` points at `scale` pixels per point.
fn harness_sized(comparison: Comparison, size: egui::Vec2, scale: f32) -> Harness<'static, State> {
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
        .with_size(size)
        .with_pixels_per_point(scale)
        .build_state(
            |ctx, s: &mut State| {
                let a = s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
                for act in a.compare() {
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
    c.add_group(vec![
        row("Naive", 580.0, 600.0),
        row("Grid", 10.0, 21.0),
        row("SortedGrid", 5.0, 5.5),
    ]);
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
    assert!(has_label(&h, "Grid: 58x faster (57–59x) than Naive"));
    assert!(has_label(
        &h,
        "SortedGrid: 116x faster (114–118x) than Naive"
    ));
    assert_eq!(
        h.query_all_by_label_contains("5 rounds of 15 frames")
            .count(),
        3
    );
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
    assert!(has_label(&h, "Naive: 58x slower (57–59x) than Grid"));
    assert!(has_label(
        &h,
        "SortedGrid: 2.0x faster (1.96–2.04x) than Grid"
    ));
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
    h.get_by_label("Measure all").click();
    h.run();
    assert_eq!(h.state().done.last(), Some(&CompareAction::MeasureAll));
    h.get_by_label("Clear").click();
    h.run();
    assert!(h.state().stats.comparison.is_empty());
    assert!(has_label(&h, "No rows yet."));
}

/// Rows measured apart say so, and the panel offers to measure them again
/// together; every row names the kernel among the settings shared.
#[test]
fn rows_measured_apart_are_marked_and_the_shared_kernel_is_named() {
    let mut c = Comparison::default();
    c.add(row("first", 10.0, 10.0));
    c.add(row("second", 5.0, 5.0));
    let mut h = harness(c);
    h.run();
    assert!(has_label(&h, "(measured apart) than"));
    assert!(has_label(&h, "Some rows were measured apart"));
    assert!(has_label(&h, " kernel"), "the kernel is a shared setting");
}

/// At 1024x768 with the UI at 1.5x, and at 1280x720 at 2x, with six rows,
/// the compare panel's export buttons are reached with a pointer click
/// once the panel is scrolled: the chart and the buttons scroll with the
/// rows instead of falling below the window.
#[test]
fn at_projector_sizes_the_export_buttons_are_reached_with_six_rows() {
    for (px, scale) in [
        (egui::vec2(1024.0, 768.0), 1.5),
        (egui::vec2(1280.0, 720.0), 2.0),
    ] {
        let size = px / scale;
        let mut c = Comparison::default();
        let rows = (0..6)
            .map(|k| row(&format!("row {k}"), 10.0 + k as f64, 11.0 + k as f64))
            .collect();
        c.add_group(rows);
        let mut h = harness_sized(c, size, scale);
        h.run();
        let window = h
            .get_all_by_label("Compare")
            .filter_map(|n| n.raw_bounds())
            .max_by(|a, b| a.area().total_cmp(&b.area()))
            .unwrap();
        assert!(
            window.y1 <= f64::from(size.y) + 1.0,
            "{size:?}: the panel fits the screen: {window:?}"
        );
        let at = egui::pos2(
            ((window.x0 + window.x1) / 2.0) as f32,
            ((window.y0 + window.y1) / 2.0) as f32,
        );
        let mut reached = false;
        for _ in 0..60 {
            let b = h.get_by_label("Save CSV").raw_bounds().unwrap();
            let cy = (b.y0 + b.y1) / 2.0;
            if cy > window.y0 && cy < window.y1 - 4.0 {
                h.get_by_label("Save CSV").simulate_click();
                h.run();
                reached = h.state().done.last() == Some(&CompareAction::SaveCsv);
                break;
            }
            scroll_down(&mut h, at);
        }
        assert!(
            reached,
            "{size:?}: Save CSV was never clicked: {:?}",
            h.state().done
        );
    }
}

#[test]
fn a_working_set_curve_is_listed_plotted_and_removable() {
    use spatial_query_lab::measure::working_set_sweep::WsCurve;
    use spatial_query_lab::measure::Outcome;
    let outcomes: Vec<Outcome> = [1_000usize, 2_000, 4_000]
        .iter()
        .map(|&u| {
            let mut m = row("p", u as f64 * 1e-4, u as f64 * 1.1e-4);
            m.settings.units = u;
            Outcome::Measured(m)
        })
        .collect();
    let mut c = Comparison::default();
    c.add_ws_curve(WsCurve::of("Grid / SoA / order off", &outcomes, None));
    let mut h = harness(c);
    h.run();
    assert!(has_label(&h, "Working-set sweeps: query ns per unit"));
    assert!(has_label(&h, "— Grid / SoA / order off"));
    h.get_by_label("x").simulate_click();
    h.run();
    assert_eq!(h.state().done, vec![CompareAction::RemoveWsCurve(0)]);
}

#[test]
fn a_row_with_a_cache_model_shows_its_modeled_misses() {
    use spatial_query_lab::measure::memory::modeled::Modeled;
    let mut m = row("Grid", 10.0, 11.0);
    m.model = Some(Modeled {
        lines_touched: 45.5,
        misses: vec![40.25, 20.0, 1.0],
        queries: 1024,
        ..Default::default()
    });
    let mut c = Comparison::default();
    c.add(m);
    c.add(row("plain", 5.0, 5.5));
    let mut h = harness(c);
    h.run();
    assert!(has_label(
        &h,
        "modeled per query: 45.5 lines, misses L1d 40.2, L2 20.0, L3 1.0"
    ));
    assert_eq!(
        h.query_all_by_label_contains("modeled per query").count(),
        1,
        "only the modeled row says so"
    );
}
