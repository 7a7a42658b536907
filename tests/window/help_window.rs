//! The help window (F1) driven headless through egui (egui_kittest), on
//! screens from a tiny one to a projector's at a raised UI scale: it stays
//! on screen, close button and first row included, and the wheel over it
//! brings its last row into view where the rows do not all fit.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use egui_kittest::Harness;
use egui_macroquad::egui;

use spatial_query_lab::engine::sim::Settings;
use spatial_query_lab::window::app::keys::help_rows;
use spatial_query_lab::window::ui::stats::FrameStats;
use spatial_query_lab::window::ui::{Overlay, ViewOptions};

/// The overlay with its help window open, and what it reads and writes.
struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
}

/// The overlay with the window's own help rows, help closed, on a screen of
/// `size` pixels at `scale` pixels per point.
fn harness(size: egui::Vec2, scale: f32) -> Harness<'static, State> {
    let state = State {
        overlay: Overlay::default(),
        settings: Settings::default(),
        view: ViewOptions::default(),
        stats: FrameStats {
            help: help_rows(),
            cores: 2,
            ..Default::default()
        },
    };
    Harness::builder()
        .with_size(size / scale)
        .with_pixels_per_point(scale)
        .build_state(
            |ctx, s: &mut State| {
                s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
            },
            state,
        )
}

fn bounds(node: &egui_kittest::kittest::Node<'_>) -> egui::Rect {
    let r = node.raw_bounds().expect("widget has bounds");
    egui::Rect::from_min_max(
        egui::pos2(r.x0 as f32, r.y0 as f32),
        egui::pos2(r.x1 as f32, r.y1 as f32),
    )
}

#[test]
fn the_help_window_fits_the_screen_and_scrolls_to_its_last_row() {
    let rows = help_rows();
    let (first, last) = (rows[0].1, rows[rows.len() - 1].1);
    let mut scrolled = 0;
    for (w, h, scale) in [
        (1280.0, 800.0, 1.0),
        (1024.0, 768.0, 1.5),
        (800.0, 600.0, 1.0),
        (640.0, 360.0, 1.0),
        (800.0, 480.0, 3.0),
    ] {
        let ctx = format!("{w} x {h} pixels at {scale}");
        let mut harness = harness(egui::vec2(w, h), scale);
        harness.run();
        // F1 opens the help window over the panel, which is already there.
        harness.state_mut().view.show_help = true;
        harness.run();
        // Bounds are in points: the screen is the size over the scale.
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(w, h) / scale);
        let window = harness
            .get_all_by_role(Role::Window)
            .find(|n| n.label().as_deref() == Some("Keyboard and mouse"))
            .map(|n| bounds(&n))
            .unwrap_or_else(|| panic!("{ctx}: the help window"));
        assert!(
            screen.expand(0.5).contains_rect(window),
            "{ctx}: window {window:?} on screen {screen:?}"
        );
        let top = bounds(&harness.get_by_label(first));
        assert!(
            window.contains_rect(top),
            "{ctx}: the first row {top:?} inside {window:?}"
        );
        // The wheel over the window (its right part, clear of the panel)
        // scrolls its rows to the last one.
        scrolled += !window.contains_rect(bounds(&harness.get_by_label(last))) as usize;
        let over = egui::pos2(window.right() - 30.0, window.center().y);
        harness
            .input_mut()
            .events
            .push(egui::Event::PointerMoved(over));
        harness.step();
        for _ in 0..100 {
            harness.input_mut().events.push(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Line,
                delta: egui::vec2(0.0, -20.0),
                modifiers: egui::Modifiers::NONE,
            });
            harness.step();
        }
        harness.run_steps(40);
        let bottom = bounds(&harness.get_by_label(last));
        assert!(
            window.expand(0.5).contains_rect(bottom),
            "{ctx}: the last row {bottom:?} scrolled inside {window:?}"
        );
    }
    assert!(
        scrolled >= 3,
        "the rows overflowed only {scrolled} of the screens"
    );
}
