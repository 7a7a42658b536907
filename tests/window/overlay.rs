//! The overlay driven headless through egui (egui_kittest): clicks and drags
//! as a user makes them, in one slow frame or over several, and what the
//! overlay claims of the pointer in each frame (which the frame loop uses to
//! keep clicks away from picking and the camera).

use egui::accesskit::Role;
use egui_kittest::kittest::{Node, Queryable};
use egui_kittest::Harness;
use egui_macroquad::egui;

use spatial_query_lab::engine::sim::{Settings, Simulation};
use spatial_query_lab::engine::spatial::{GridGeometry, Strategy};
use spatial_query_lab::measure::sweep::{standard_ratios, CellSweep};
use spatial_query_lab::settings::budget::{min_cell_size, settle, world_for, Budget};
use spatial_query_lab::window::render::egui_host::{
    deliverable, wheel_notches, WheelSource, LINE_SCROLL_POINTS,
};
use spatial_query_lab::window::ui::stats::{FrameStats, PhaseSample};
use spatial_query_lab::window::ui::sweep::SweepAction;
use spatial_query_lab::window::ui::timings::PENDING;
use spatial_query_lab::window::ui::{
    Overlay, OverlayAction, OverlayActions, Section, ViewOptions, UI_SCALE_RANGE,
};

/// The overlay and everything it reads and writes.
struct State {
    overlay: Overlay,
    settings: Settings,
    view: ViewOptions,
    stats: FrameStats,
    actions: Vec<OverlayActions>,
    /// What the frame loop asks egui after each pass.
    claims_pointer: bool,
}

fn harness(stats: FrameStats) -> Harness<'static, State> {
    harness_with(stats, Settings::default())
}

fn harness_with(stats: FrameStats, settings: Settings) -> Harness<'static, State> {
    harness_sized(stats, settings, egui::vec2(1280.0, 800.0))
}

/// The overlay, every section open, in a window of `size` points.
fn harness_sized(
    stats: FrameStats,
    settings: Settings,
    size: egui::Vec2,
) -> Harness<'static, State> {
    harness_of(Overlay::expanded(), stats, settings, size)
}

/// `overlay` in a window of `size` points.
fn harness_of(
    overlay: Overlay,
    stats: FrameStats,
    settings: Settings,
    size: egui::Vec2,
) -> Harness<'static, State> {
    let state = State {
        overlay,
        settings,
        view: ViewOptions::default(),
        stats,
        actions: Vec::new(),
        claims_pointer: false,
    };
    Harness::builder().with_size(size).build_state(
        |ctx, s: &mut State| {
            let a = s.overlay.show(ctx, &mut s.settings, &mut s.view, &s.stats);
            s.actions.push(a);
            s.claims_pointer = ctx.is_pointer_over_area() || ctx.wants_pointer_input();
            // As the frame loop does after the overlay: the guards (and "= r").
            settle(&mut s.settings, &Budget::default());
        },
        state,
    )
}

/// Stats as the frame loop fills them at 10,000 units with Grid, except a
/// radius limit of 35 (the pair budget's limit at 200,000 units) so that the
/// slider's top is inside the usual 1..100.
fn stats() -> FrameStats {
    FrameStats {
        cores: 2,
        radius_max: 35.0,
        cell_min: min_cell_size(
            Strategy::Grid,
            10_000,
            world_for(10_000),
            10.0,
            &Budget::default(),
        )
        .0,
        ..Default::default()
    }
}

fn bounds(node: &Node<'_>) -> egui::Rect {
    let r = node.raw_bounds().expect("widget has bounds");
    egui::Rect::from_min_max(
        egui::pos2(r.x0 as f32, r.y0 as f32),
        egui::pos2(r.x1 as f32, r.y1 as f32),
    )
}

fn slider(h: &Harness<'_, State>, label: &str) -> egui::Rect {
    let node = h
        .get_all_by_role(Role::Slider)
        .find(|n| n.label().as_deref() == Some(label))
        .unwrap_or_else(|| panic!("no slider labeled {label}"));
    bounds(&node)
}

fn button(pos: egui::Pos2, pressed: bool) -> egui::Event {
    egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    }
}

/// Queues `events` and runs exactly one pass over all of them.
fn frame(h: &mut Harness<'_, State>, events: Vec<egui::Event>) {
    h.input_mut().events.extend(events);
    h.step();
}

#[test]
fn a_click_on_a_button_is_claimed_in_every_frame_of_the_click() {
    // A click on "= r" never also selects a unit behind the panel.
    let mut h = harness(stats());
    let at = bounds(&h.get_by_label("= r")).center();
    assert!(h.state().settings.cell_follows_radius);
    for (events, what) in [
        (vec![egui::Event::PointerMoved(at)], "hover"),
        (vec![button(at, true)], "press"),
        (vec![button(at, false)], "release"),
    ] {
        frame(&mut h, events);
        assert!(
            h.state().claims_pointer,
            "{what} over \"= r\" must be the overlay's"
        );
    }
    assert!(
        !h.state().settings.cell_follows_radius,
        "the click toggled \"= r\""
    );
    // Away from the panel, the pointer is the scene's.
    frame(
        &mut h,
        vec![egui::Event::PointerMoved(egui::pos2(900.0, 400.0))],
    );
    assert!(!h.state().claims_pointer);
}

/// The whole drag of a slow frame: move to the slider, press, drag past its
/// right end, release.
fn whole_drag(h: &Harness<'_, State>) -> Vec<egui::Event> {
    let r = slider(h, "units");
    let (from, to) = (r.center(), egui::pos2(r.right() + 200.0, r.center().y));
    vec![
        egui::Event::PointerMoved(from),
        button(from, true),
        egui::Event::PointerMoved(egui::pos2(from.x + 10.0, from.y)),
        egui::Event::PointerMoved(to),
        button(to, false),
    ]
}

fn edge(e: &egui::Event) -> Option<(egui::PointerButton, bool)> {
    match e {
        egui::Event::PointerButton {
            button, pressed, ..
        } => Some((*button, *pressed)),
        _ => None,
    }
}

#[test]
fn a_drag_inside_one_slow_frame_is_not_lost() {
    // At 1 FPS a whole drag can arrive between two frames. Handed to egui in
    // one pass it is neither a click nor a drag: the value does not move (the
    // reported fault).
    let mut h = harness(stats());
    let events = whole_drag(&h);
    frame(&mut h, events);
    h.run();
    assert_eq!(h.state().settings.units, 10_000, "egui alone loses it");

    // The window's egui host never hands a release to egui in the same pass
    // as its press: the drag arrives.
    let mut h = harness(stats());
    let mut events = whole_drag(&h);
    let mut passes = 0;
    while !events.is_empty() {
        let n = deliverable(events.iter(), |e| edge(e));
        frame(&mut h, events.drain(..n).collect());
        passes += 1;
    }
    assert_eq!(passes, 2);
    assert_eq!(
        h.state().settings.units,
        200_000,
        "dragged to the right end"
    );
}

#[test]
fn a_unit_drag_over_several_frames_applies_once_on_release() {
    let mut h = harness(stats());
    let r = slider(&h, "units");
    let y = r.center().y;
    frame(
        &mut h,
        vec![egui::Event::PointerMoved(egui::pos2(r.center().x, y))],
    );
    frame(&mut h, vec![button(egui::pos2(r.center().x, y), true)]);
    for x in [r.center().x + 20.0, r.right() - 5.0, r.right() + 50.0] {
        frame(&mut h, vec![egui::Event::PointerMoved(egui::pos2(x, y))]);
        assert!(
            h.state().claims_pointer,
            "the drag stays the overlay's off the panel"
        );
        assert_eq!(
            h.state().settings.units,
            10_000,
            "no respawn per frame of a drag"
        );
    }
    frame(&mut h, vec![button(egui::pos2(r.right() + 50.0, y), false)]);
    assert_eq!(h.state().settings.units, 200_000);
}

#[test]
fn the_units_box_commits_on_enter_not_per_keystroke() {
    let mut h = harness(stats());
    let spin = h
        .get_all_by_role(Role::SpinButton)
        .find(|n| n.numeric_value() == Some(10_000.0))
        .map(|n| bounds(&n))
        .expect("the unit count box");
    frame(&mut h, vec![egui::Event::PointerMoved(spin.center())]);
    frame(&mut h, vec![button(spin.center(), true)]);
    frame(&mut h, vec![button(spin.center(), false)]);
    // Editing: select everything, type a new count one key at a time.
    frame(
        &mut h,
        vec![egui::Event::Key {
            key: egui::Key::A,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::COMMAND,
        }],
    );
    for c in ["5", "0", "0", "0", "0"] {
        frame(&mut h, vec![egui::Event::Text(c.to_string())]);
        assert_eq!(h.state().settings.units, 10_000, "typing must not respawn");
    }
    frame(
        &mut h,
        vec![egui::Event::Key {
            key: egui::Key::Enter,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        }],
    );
    assert_eq!(h.state().settings.units, 50_000);
}

/// Drags a slider far past its end; returns the pointer's last position.
fn drag_past(h: &mut Harness<'_, State>, label: &str, right: bool) {
    let r = slider(h, label);
    let y = r.center().y;
    let end = if right {
        r.right() + 300.0
    } else {
        (r.left() - 300.0).max(0.0)
    };
    frame(h, vec![egui::Event::PointerMoved(r.center())]);
    frame(h, vec![button(r.center(), true)]);
    frame(h, vec![egui::Event::PointerMoved(egui::pos2(end, y))]);
    frame(h, vec![button(egui::pos2(end, y), false)]);
}

#[test]
fn the_radius_slider_ends_at_the_pair_budget_and_the_cell_follows() {
    let mut h = harness(stats());
    drag_past(&mut h, "query radius", true);
    let s = &h.state().settings;
    assert_eq!(s.radius, 35.0, "the slider's top is FrameStats::radius_max");
    assert!(s.cell_follows_radius, "\"= r\" is on by default");
    assert_eq!(s.cell_size, 35.0, "and the cell follows the radius");
}

#[test]
fn the_cell_slider_starts_at_the_grid_minimum() {
    let mut h = harness(stats());
    drag_past(&mut h, "cell size", false);
    let s = &h.state().settings;
    assert_eq!(
        s.cell_size,
        stats().cell_min,
        "the slider's bottom is FrameStats::cell_min"
    );
    assert!(
        !s.cell_follows_radius,
        "dragging the cell size stops \"= r\""
    );
}

#[test]
fn notices_stay_until_dismissed() {
    let text =
        "Radius 60.00 would find about 113 million neighbor pairs per frame; lowered to 35.36.";
    let mut h = harness(FrameStats {
        notices: vec!["first".to_string(), text.to_string()],
        ..stats()
    });
    for _ in 0..20 {
        h.step();
    }
    assert!(
        h.query_by_label(text).is_some(),
        "the notice is still shown"
    );
    // The second notice's dismiss button.
    let label = bounds(&h.get_by_label(text));
    let dismiss = h
        .get_all_by_label("x")
        .map(|n| bounds(&n))
        .filter(|b| b.right() <= label.left())
        .min_by(|a, b| {
            let d = |r: &egui::Rect| (r.top() - label.top()).abs();
            d(a).total_cmp(&d(b))
        })
        .expect("a dismiss button left of the notice");
    frame(&mut h, vec![egui::Event::PointerMoved(dismiss.center())]);
    frame(&mut h, vec![button(dismiss.center(), true)]);
    frame(&mut h, vec![button(dismiss.center(), false)]);
    assert!(h
        .state()
        .actions
        .iter()
        .any(|a| a.contains(OverlayAction::Dismiss(1))));
}

#[test]
fn on_a_short_window_the_panel_scrolls_instead_of_running_off_screen() {
    let mut h = harness(stats());
    h.set_size(egui::vec2(1280.0, 480.0));
    h.run();
    let window = h
        .get_all_by_role(Role::Window)
        .find(|n| n.label().as_deref() == Some("Spatial Query Lab"))
        .map(|n| bounds(&n))
        .expect("the overlay window");
    assert!(
        window.bottom() <= 480.0 && window.height() > 300.0,
        "window {window:?} on a 480-point screen"
    );
    // Scrolling down brings the timing graph's legend into view.
    let legend = h.get_by_label("— query");
    assert!(legend.raw_bounds().is_some());
}

/// The top of the "threads" slider (the first section's), inside the
/// panel's scroll area.
fn threads_top(h: &Harness<'_, State>) -> f32 {
    slider(h, "threads").top()
}

#[test]
fn ten_wheel_notches_scroll_the_panel_ten_lines() {
    // Hard case W2: ten X11 notches scrolled the panel 5 points (raw / 90).
    // The window's host hands egui one `MouseWheelUnit::Line` per notch
    // (egui-miniquad 0.16 builds the event as below) and sets a line to
    // LINE_SCROLL_POINTS on every platform.
    for (source, raw) in [
        // `xdotool click 5`: X11 button 5, `mouse_wheel_event(0.0, -1.0)`.
        (WheelSource::X11, -1.0),
        // One notch toward the user on Windows: -WHEEL_DELTA.
        (WheelSource::Windows, -120.0),
    ] {
        let mut h = harness(stats());
        h.ctx
            .options_mut(|o| o.line_scroll_speed = LINE_SCROLL_POINTS);
        h.set_size(egui::vec2(1280.0, 360.0));
        h.run();
        let before = threads_top(&h);
        let over = slider(&h, "threads").center();
        frame(&mut h, vec![egui::Event::PointerMoved(over)]);
        let notch = egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::vec2(0.0, wheel_notches(raw, source)),
            modifiers: egui::Modifiers::NONE,
        };
        frame(&mut h, vec![notch; 10]);
        // egui spreads a wheel's scroll over a few passes; twenty settle it.
        h.run_steps(20);
        let moved = before - threads_top(&h);
        assert!(
            h.state().claims_pointer,
            "{source:?}: the wheel over the panel is the overlay's"
        );
        assert!(
            (moved - 10.0 * LINE_SCROLL_POINTS).abs() < 0.5,
            "{source:?}: ten notches scrolled the panel {moved} points, not ten lines"
        );
    }
}

#[test]
fn a_scrolling_panel_shrinks_with_the_screen() {
    // Found while adding the vertex rows: a panel already scrolling on a
    // 600-point screen kept its 520-point height when the screen shrank.
    let mut h = harness(stats());
    for height in [600.0, 480.0, 360.0] {
        h.set_size(egui::vec2(1280.0, height));
        h.run();
        let window = h
            .get_all_by_role(Role::Window)
            .find(|n| n.label().as_deref() == Some("Spatial Query Lab"))
            .map(|n| bounds(&n))
            .expect("the overlay window");
        assert!(
            window.bottom() <= height && window.height() > 200.0,
            "window {window:?} on a {height}-point screen"
        );
    }
}

#[test]
fn the_units_box_is_not_clamped_by_the_slider() {
    // Found in review: the slider (1,000..200,000) clamped the value the box
    // had just been dragged to.
    let mut h = harness_with(
        stats(),
        Settings {
            units: 190_000,
            ..Settings::default()
        },
    );
    let spin = h
        .get_all_by_role(Role::SpinButton)
        .find(|n| n.numeric_value() == Some(190_000.0))
        .map(|n| bounds(&n))
        .expect("the unit count box");
    let y = spin.center().y;
    frame(&mut h, vec![egui::Event::PointerMoved(spin.center())]);
    frame(&mut h, vec![button(spin.center(), true)]);
    for dx in [10.0, 400.0, 1000.0] {
        frame(
            &mut h,
            vec![egui::Event::PointerMoved(egui::pos2(
                spin.center().x + dx,
                y,
            ))],
        );
    }
    frame(
        &mut h,
        vec![button(egui::pos2(spin.center().x + 1000.0, y), false)],
    );
    let units = h.state().settings.units;
    assert!(units > 200_000, "committed {units}");
}

/// The button labeled `label` (a window may have the same title).
fn button_node<'h>(h: &'h Harness<'_, State>, label: &str) -> Node<'h> {
    h.get_all_by_role(Role::Button)
        .find(|n| n.label().as_deref() == Some(label))
        .unwrap_or_else(|| panic!("no button labeled {label}"))
}

/// Clicks the button labeled `label`: move, press, release, one pass each.
fn click(h: &mut Harness<'_, State>, label: &str) {
    let at = bounds(&button_node(h, label)).center();
    frame(h, vec![egui::Event::PointerMoved(at)]);
    frame(h, vec![button(at, true)]);
    frame(h, vec![button(at, false)]);
}

/// A sweep of a real simulation (2,000 units, one counted frame per cell
/// size), stopped after `steps` steps (run to the end when `None`).
fn sweep_after(steps: Option<usize>) -> CellSweep {
    let s = Settings {
        units: 2_000,
        separation: 0.0,
        ..Settings::default()
    };
    let mut sim = Simulation::new(&s);
    let mut sw = CellSweep::new(&s, &standard_ratios(), 1, &Budget::default())
        .with_frame_limit(f64::INFINITY);
    let mut n = 0;
    while let Some(cell_size) = sw.cell_size().filter(|_| steps.is_none_or(|k| n < k)) {
        sw.record_step(&sim.step(
            1.0 / 60.0,
            &Settings {
                cell_size,
                ..s.clone()
            },
        ));
        n += 1;
    }
    sw
}

/// The overlay at 2,000 units with Naive (which has no grid to sweep), run once.
fn naive_harness() -> Harness<'static, State> {
    let naive = Settings {
        strategy: Strategy::Naive,
        units: 2_000,
        ..Settings::default()
    };
    let mut h = harness_with(stats(), naive);
    h.run();
    h
}

/// [`stats`] after a step with a grid (the sweep's button shares its row).
fn stats_with_grid() -> FrameStats {
    let mut st = stats();
    // A step at the harness's settings has run.
    st.measured = Some(Settings::default());
    st.step.grid = Some(GridGeometry {
        cell: 10.0,
        nx: 45,
        nz: 45,
        ..Default::default()
    });
    st
}

#[test]
fn the_sweep_button_starts_and_its_window_cancels_or_uses_the_best() {
    // No sweep: the button, next to the grid's size, starts one; Naive has
    // no grid to sweep.
    let mut h = harness(stats_with_grid());
    assert!(h
        .query_by_label("grid: 45 x 45 = 2,025 cells of 10.00")
        .is_some());
    assert!(h.query_by_label("Use best").is_none());
    click(&mut h, "Cell-size sweep");
    assert!(h
        .state()
        .actions
        .iter()
        .any(|a| a.contains(OverlayAction::Sweep(SweepAction::Start))));
    let h = naive_harness();
    assert!(button_node(&h, "Cell-size sweep").is_disabled());

    // Running: a progress bar, partial plots, "Use best" waits, "Cancel" closes.
    let mut h = harness(FrameStats {
        sweep: Some(sweep_after(Some(6))),
        ..stats_with_grid()
    });
    h.run();
    assert!(
        h.get_all_by_role(Role::Button)
            .all(|n| n.label().as_deref() != Some("Cell-size sweep")),
        "a progress bar replaces the button while the sweep runs"
    );
    assert!(button_node(&h, "Use best").is_disabled());
    assert!(h.query_by_label("Close").is_none());
    click(&mut h, "Cancel");
    assert!(h
        .state()
        .actions
        .iter()
        .any(|a| a.contains(OverlayAction::Sweep(SweepAction::Close))));

    // Done: the fastest is named and "Use best" asks for it.
    let done = sweep_after(None);
    let best = done.best().unwrap().clone();
    let mut h = harness(FrameStats {
        sweep: Some(done),
        ..stats_with_grid()
    });
    h.run();
    assert!(h
        .query_by_label_contains(&format!("Fastest: cell {:.2}", best.cell_size))
        .is_some());
    assert!(h.query_by_label("Close").is_some());
    click(&mut h, "Use best");
    assert!(h
        .state()
        .actions
        .iter()
        .any(|a| a.contains(OverlayAction::Sweep(SweepAction::UseBest))));

    // Stopped part-way (case X11: a strategy change): no fastest, no "Use best".
    let mut stopped = sweep_after(Some(6));
    stopped.stop("the strategy changed");
    let mut h = harness(FrameStats {
        sweep: Some(stopped),
        ..stats_with_grid()
    });
    h.run();
    assert!(h.query_by_label_contains("Fastest: cell").is_none());
    assert!(h
        .query_by_label_contains("Stopped before its end (the strategy changed)")
        .is_some());
    assert!(button_node(&h, "Use best").is_disabled());
}

/// A right-drag with the secondary button from `from` to `to`, over three
/// frames (press, move, release).
fn right_drag(h: &mut Harness<'_, State>, from: egui::Pos2, to: egui::Pos2) {
    let right = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Secondary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    frame(h, vec![egui::Event::PointerMoved(from), right(from, true)]);
    for k in 1..=4 {
        let at = from + (to - from) * (k as f32 / 4.0);
        frame(h, vec![egui::Event::PointerMoved(at)]);
    }
    frame(h, vec![right(to, false)]);
}

#[test]
fn a_right_drag_on_the_timings_graph_leaves_it_following_the_newest_frames() {
    // Hard case W3: a right-drag never box-zooms the graph, which keeps
    // following new frames.
    use spatial_query_lab::window::ui::timings::TIMINGS_PLOT;
    let mut st = stats();
    for k in 0..120 {
        st.history.record(PhaseSample {
            t: k as f64 / 60.0,
            ms: [1.0, 2.0, 3.0 + (k % 7) as f32, 1.0, 9.0],
        });
    }
    // Tall enough that the panel does not scroll and the graph is on screen.
    let mut h = harness_sized(st, Settings::default(), egui::vec2(1280.0, 1100.0));
    h.run();
    let id = egui::Id::new(TIMINGS_PLOT);
    let memory = |h: &Harness<'_, State>| {
        egui_plot::PlotMemory::load(&h.ctx, id).expect("the timings graph is drawn")
    };
    let before = memory(&h);
    assert!(before.auto_bounds.x && before.auto_bounds.y);
    let plot = *before.transform().frame();
    assert!(plot.bottom() < 1100.0, "the graph is on screen: {plot:?}");
    let (from, to) = (
        plot.left_top() + egui::vec2(20.0, 15.0),
        plot.right_bottom() - egui::vec2(40.0, 20.0),
    );
    right_drag(&mut h, from, to);
    h.run();
    let after = memory(&h);
    assert!(
        after.auto_bounds.x && after.auto_bounds.y,
        "the graph stopped following: auto bounds {:?}",
        after.auto_bounds
    );
    // New frames keep arriving: the newest stays at the right edge (x = 0).
    h.state_mut().stats.history.record(PhaseSample {
        t: 3.0,
        ms: [1.0, 2.0, 40.0, 1.0, 9.0],
    });
    h.run();
    let bounds = *memory(&h).transform().bounds();
    assert!(
        bounds.max()[0] >= 0.0 && bounds.max()[1] >= 40.0,
        "the newest frame is in view: {bounds:?}"
    );
}

/// Every text the overlay shows (a label's text is its accessibility
/// value), trimmed.
fn texts(h: &Harness<'_, State>) -> Vec<String> {
    h.get_all_by_role(Role::Label)
        .filter_map(|n| n.value())
        .map(|l| l.trim().to_string())
        .collect()
}

/// Stats of a completed Grid step at `settings` with distinctive numbers,
/// and means over five of its frames.
fn measured_grid(settings: &Settings) -> FrameStats {
    let mut st = stats();
    st.measured = Some(settings.clone());
    st.step.query.candidates = 123_456;
    st.step.query.neighbors = 7_890;
    st.step.threads = 4;
    st.step_allocations = Some(0);
    for k in 0..5 {
        st.history.record(PhaseSample {
            t: k as f64 * 0.1,
            ms: [1.25, 2.5, 33.75, 4.5, 9.0],
        });
    }
    st
}

#[test]
fn numbers_not_yet_measured_for_the_current_settings_are_pending_not_zero() {
    // While the first (sliced) Naive frame runs, the phase table shows
    // pending, never 0.000 ms and 0 candidates.
    let mut h = harness(stats());
    h.run();
    let t = texts(&h);
    assert!(
        !t.iter()
            .any(|l| l == "0.000 ms" || l.contains("step 0.00 ms")),
        "zeros shown before the first step: {t:?}"
    );
    assert!(
        t.iter().filter(|l| *l == PENDING).count() >= 8,
        "five phases and four counters pending: {t:?}"
    );
}

#[test]
fn another_settings_numbers_are_pending_until_a_step_with_the_new_ones() {
    // After switching Grid to Naive at 50,000 units the panel never shows
    // Naive selected beside Grid's numbers.
    let grid = Settings {
        strategy: Strategy::Grid,
        ..Settings::default()
    };
    let mut h = harness_with(measured_grid(&grid), grid.clone());
    h.run();
    let t = texts(&h);
    assert!(t.iter().any(|l| l == "123,456"), "{t:?}");
    assert!(t.iter().any(|l| l == "33.750 ms"), "{t:?}");
    assert!(t.iter().any(|l| l == "step 42.00 ms"), "{t:?}");
    // The user picks Naive: the same frame's panel no longer claims Grid's numbers.
    h.state_mut().settings.strategy = Strategy::Naive;
    h.run();
    let t = texts(&h);
    for stale in ["123,456", "7,890", "33.750 ms", "4"] {
        assert!(!t.iter().any(|l| l == stale), "{stale} still shown: {t:?}");
    }
    assert!(t.iter().any(|l| *l == format!("step {PENDING}")), "{t:?}");
    // Speed, separation and pause do not change the work: numbers stay.
    h.state_mut().settings = Settings {
        speed: 9.0,
        separation: 0.0,
        paused: true,
        ..grid
    };
    h.run();
    assert!(texts(&h).iter().any(|l| l == "123,456"));
}

#[test]
fn after_a_change_the_old_frames_means_are_not_shown_next_to_the_new_counts() {
    // After a change of strategy the panel shows the new frame's counts and
    // no mean of the frames before it: means of another work are pending.
    let naive = Settings {
        strategy: Strategy::Naive,
        ..Settings::default()
    };
    let mut st = measured_grid(&naive);
    st.step.query.candidates = 400_000_000;
    st.history.restart();
    let mut h = harness_with(st, naive);
    h.run();
    let t = texts(&h);
    assert!(t.iter().any(|l| l == "400,000,000"), "{t:?}");
    assert!(
        !t.iter().any(|l| l == "33.750 ms"),
        "old means shown: {t:?}"
    );
    assert!(t.iter().any(|l| *l == format!("step {PENDING}")), "{t:?}");
    // The first frame of the new work brings its own means.
    h.state_mut().stats.history.record(PhaseSample {
        t: 5.0,
        ms: [1.0, 0.5, 900.0, 2.0, 30.0],
    });
    h.run();
    let t = texts(&h);
    assert!(t.iter().any(|l| l == "900.000 ms"), "{t:?}");
}

#[test]
fn a_passing_message_does_not_move_the_controls() {
    // A passing message ("Screenshot saved: ...") takes no row of its own
    // above the controls: every control stays where the pointer aims.
    let mut h = harness(stats());
    h.run();
    let before = slider(&h, "speed");
    h.state_mut().stats.status = Some(("Screenshot saved: spatial-query-lab-001.png".into(), 1e9));
    h.run();
    assert!(
        texts(&h).iter().any(|l| l.starts_with("Screenshot saved")),
        "the message is shown"
    );
    assert_eq!(slider(&h, "speed"), before, "the controls stay put");
}

/// Stats with 120 frames of history, so the timings graph has lines.
fn stats_with_history() -> FrameStats {
    let mut st = stats();
    for k in 0..120 {
        st.history.record(PhaseSample {
            t: k as f64 / 60.0,
            ms: [1.0, 2.0, 3.0 + (k % 7) as f32, 1.0, 9.0],
        });
    }
    st
}

/// The section header titled `title` (the leftmost of the labels so
/// named: the strategy "Grid" is further right).
fn header(h: &Harness<'_, State>, title: &str) -> egui::Rect {
    h.get_all_by_label(title)
        .map(|n| bounds(&n))
        .min_by(|a, b| a.left().total_cmp(&b.left()))
        .unwrap_or_else(|| panic!("no header {title}"))
}

/// The overlay window's bounds.
fn panel(h: &Harness<'_, State>) -> egui::Rect {
    h.get_all_by_role(Role::Window)
        .find(|n| n.label().as_deref() == Some("Spatial Query Lab"))
        .map(|n| bounds(&n))
        .expect("the overlay window")
}

#[test]
fn the_compact_first_launch_shows_the_timings_graph_without_scrolling() {
    use spatial_query_lab::window::ui::timings::TIMINGS_PLOT;
    for size in [egui::vec2(1280.0, 800.0), egui::vec2(1024.0, 768.0)] {
        let mut h = harness_of(
            Overlay::default(),
            stats_with_history(),
            Settings::default(),
            size,
        );
        h.run();
        for section in Section::ALL {
            assert_eq!(
                h.state().overlay.is_open(section),
                matches!(section, Section::Algorithm | Section::Timings),
                "{section:?} at first launch"
            );
            header(&h, section.title());
        }
        // The algorithm's controls are there, the closed sections' are not.
        assert!(h.query_by_label("SortedGrid").is_some());
        assert!(h
            .get_all_by_role(Role::Slider)
            .any(|n| n.label().as_deref() == Some("threads")));
        assert!(!h
            .get_all_by_role(Role::Slider)
            .any(|n| n.label().as_deref() == Some("query radius")));
        let plot = egui_plot::PlotMemory::load(&h.ctx, egui::Id::new(TIMINGS_PLOT))
            .expect("the timings graph is drawn");
        let frame = *plot.transform().frame();
        let window = panel(&h);
        assert!(
            frame.bottom() <= window.bottom() && frame.bottom() <= size.y,
            "at {size:?} the graph {frame:?} is below the panel {window:?}"
        );
        // The first row's buttons are the panel's first widgets.
        let first = bounds(&button_node(&h, "respawn"));
        let top = header(&h, "Algorithm");
        assert!(
            first.bottom() <= top.top(),
            "first row {first:?} above {top:?}"
        );
    }
}

#[test]
fn a_click_on_a_header_opens_or_closes_its_section_for_the_session() {
    let mut h = harness_of(
        Overlay::default(),
        stats(),
        Settings::default(),
        egui::vec2(1280.0, 800.0),
    );
    h.run();
    let radius = |h: &Harness<'_, State>| {
        h.get_all_by_role(Role::Slider)
            .any(|n| n.label().as_deref() == Some("query radius"))
    };
    assert!(!radius(&h));
    let click_header = |h: &mut Harness<'_, State>, title: &str| {
        let at = header(h, title).center();
        frame(h, vec![egui::Event::PointerMoved(at)]);
        frame(h, vec![button(at, true)]);
        frame(h, vec![button(at, false)]);
        h.run();
    };
    click_header(&mut h, "Grid");
    assert!(h.state().overlay.is_open(Section::Grid));
    assert!(radius(&h), "the grid section shows the radius slider");
    // It stays open over later frames, and closes on the next click.
    h.run_steps(10);
    assert!(radius(&h));
    click_header(&mut h, "Grid");
    assert!(!h.state().overlay.is_open(Section::Grid));
    assert!(!radius(&h));
    click_header(&mut h, "Timings");
    assert!(!h.state().overlay.is_open(Section::Timings));
    assert!(
        h.query_by_label("— query").is_none(),
        "the graph's legend is gone"
    );
}

#[test]
fn the_ui_scale_buttons_and_keys_change_the_scale_within_its_range() {
    let mut h = harness_of(
        Overlay::default(),
        stats(),
        Settings::default(),
        egui::vec2(1280.0, 800.0),
    );
    h.run();
    assert_eq!(h.state().view.ui_scale, 1.0);
    click(&mut h, "+");
    assert_eq!(h.state().view.ui_scale, 1.1);
    let key = |key| egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::COMMAND,
    };
    frame(&mut h, vec![key(egui::Key::Equals)]);
    assert_eq!(h.state().view.ui_scale, 1.2);
    frame(
        &mut h,
        vec![
            key(egui::Key::Minus),
            key(egui::Key::Minus),
            key(egui::Key::Minus),
        ],
    );
    assert_eq!(h.state().view.ui_scale, 0.9);
    frame(&mut h, vec![key(egui::Key::Num0)]);
    assert_eq!(h.state().view.ui_scale, 1.0);
    // Never past the range, and the radius keys do not fire with Ctrl.
    frame(&mut h, vec![key(egui::Key::Equals); 40]);
    assert_eq!(h.state().view.ui_scale, UI_SCALE_RANGE.1);
    assert!(button_node(&h, "+").is_disabled());
    frame(&mut h, vec![key(egui::Key::Minus); 40]);
    assert_eq!(h.state().view.ui_scale, UI_SCALE_RANGE.0);
    assert_eq!(h.state().settings.radius, Settings::default().radius);
}

#[test]
fn every_control_of_the_panel_shows_a_tooltip_on_hover() {
    // Every control's tooltip is reachable by hover. Every section
    // open, on a screen tall enough that nothing scrolls; a tooltip shows as
    // new text beside the panel's own.
    let mut st = stats_with_grid();
    st.selected = Some(spatial_query_lab::window::ui::stats::SelectedUnit {
        id: 7,
        neighbors: 3,
        enemies: 1,
        follow: false,
        inspected: None,
    });
    let mut h = harness_sized(st, Settings::default(), egui::vec2(1280.0, 1600.0));
    h.ctx.style_mut(|s| s.interaction.tooltip_delay = 0.0);
    h.run();
    let window = panel(&h);
    let controls: Vec<(Role, String, egui::Rect)> = h
        .get_all_by_role(Role::Button)
        .chain(h.get_all_by_role(Role::CheckBox))
        .chain(h.get_all_by_role(Role::Slider))
        .chain(h.get_all_by_role(Role::SpinButton))
        .chain(h.get_all_by_role(Role::ComboBox))
        .map(|n| (n.role(), n.label().unwrap_or_default(), bounds(&n)))
        // Inside the panel, below its title bar (egui's own collapse button).
        .filter(|(_, _, r)| window.contains(r.center()) && r.top() > window.top() + 30.0)
        .collect();
    assert!(
        controls.len() > 30,
        "found only {} controls",
        controls.len()
    );
    // The row captions that carry their setting's tooltip too.
    let captions: Vec<(Role, String, egui::Rect)> = h
        .get_all_by_role(Role::Label)
        .map(|n| (n.role(), n.value().unwrap_or_default(), bounds(&n)))
        .filter(|(_, l, r)| {
            ["Strategy", "Kernel", "Kernel (unused)"].contains(&l.as_str())
                && window.contains(r.center())
        })
        .collect();
    let mut silent = Vec::new();
    let mut tooltips: Vec<String> = Vec::new();
    for (role, label, r) in controls.iter().chain(&captions) {
        frame(
            &mut h,
            vec![egui::Event::PointerMoved(egui::pos2(5.0, 1590.0))],
        );
        h.run_steps(3);
        let before = texts(&h);
        frame(&mut h, vec![egui::Event::PointerMoved(r.center())]);
        h.run_steps(5);
        let after = texts(&h);
        let new: Vec<String> = after.into_iter().filter(|t| !before.contains(t)).collect();
        if new.is_empty() && controls.iter().any(|c| c.2 == *r) {
            silent.push(format!("{role:?} {label:?} at {:?}", r.center()));
        }
        tooltips.extend(new);
    }
    assert!(silent.is_empty(), "no tooltip on hover: {silent:#?}");
    // Every setting the table puts in the panel has a control whose
    // tooltip carries the setting's help sentence (the cache model's is in
    // the memory view, not the panel).
    use spatial_query_lab::settings::rows::{Surfaces, ROWS};
    let missing: Vec<&str> = ROWS
        .iter()
        .filter(|r| r.on.has(Surfaces::OVERLAY))
        .filter(|r| !tooltips.iter().any(|t| t.contains(r.help)))
        .map(|r| r.key)
        .collect();
    assert!(
        missing.is_empty(),
        "no tooltip carries the help of {missing:?}"
    );
}

/// Every kernel this CPU runs is chosen by a click on its name.
#[test]
fn every_available_kernel_is_chosen_by_a_click() {
    use spatial_query_lab::engine::spatial::{Kernel, Strategy};
    for k in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
        let start = if k == Kernel::Scalar {
            Kernel::Sse
        } else {
            Kernel::Scalar
        };
        let start = if start.is_available() {
            start
        } else {
            continue;
        };
        let mut h = harness_with(
            stats(),
            Settings {
                strategy: Strategy::SortedGrid,
                kernel: start,
                ..Settings::default()
            },
        );
        h.run();
        h.get_by_label(k.name()).click();
        h.run();
        assert_eq!(h.state().settings.kernel, k, "clicking {}", k.name());
    }
}

#[test]
fn the_working_set_button_asks_for_a_sweep_except_on_naive() {
    use spatial_query_lab::window::ui::compare::CompareAction;
    let mut h = harness(stats_with_grid());
    click(&mut h, "Working-set sweep");
    assert!(h
        .state()
        .actions
        .iter()
        .any(|a| a.contains(OverlayAction::Compare(CompareAction::WorkingSetSweep))));
    let h = naive_harness();
    assert!(button_node(&h, "Working-set sweep").is_disabled());
}
