//! The egui overlay: controls for every setting, notices that stay until
//! dismissed and the help window; the numbers of the last frames are drawn
//! by [`super::timings`], the vertex-data rows by [`super::vertex_data`].
//!
//! Widgets only: it edits a plain [`Settings`] and [`ViewOptions`], reads a
//! plain [`FrameStats`], and returns [`OverlayActions`] for the frame loop.

mod actions;
mod controls;

use egui_macroquad::egui;

use crate::engine::sim::Settings;
use crate::window::ui::compare::CompareState;
use crate::window::ui::stats::FrameStats;
use crate::window::ui::sweep;
use crate::window::ui::timings;
use crate::window::ui::vertex_data;
pub use crate::window::ui::view_options::ViewOptions;
pub use actions::{OverlayAction, OverlayActions};
use controls::*;
pub use controls::{cell_max, radius_range, radius_top, units_range};

/// Width of the right column the lessons panel docks in, points: at most
/// 440, at most 45% of the screen, at least the memory view's width.
pub fn dock_width(screen: egui::Rect) -> f32 {
    (screen.width() * 0.45).clamp(super::memory_view::WIDTH, 440.0)
}

/// The docked column's two places: the memory view's (or the sweep
/// window's) at the top, when `upper` is open, and the lessons panel's
/// below it, points.
pub fn dock_places(screen: egui::Rect, upper: bool) -> (egui::Rect, egui::Rect) {
    let w = dock_width(screen);
    let margin = 8.0;
    let column = egui::Rect::from_min_max(
        egui::pos2(screen.right() - w - margin, screen.top() + margin),
        egui::pos2(screen.right() - margin, screen.bottom() - margin),
    );
    if !upper {
        return (egui::Rect::NOTHING, column);
    }
    let split = column.top() + column.height() * 0.42;
    (
        egui::Rect::from_min_max(column.min, egui::pos2(column.right(), split - margin)),
        egui::Rect::from_min_max(egui::pos2(column.left(), split), column.max),
    )
}

/// A collapsible section of the panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Strategy, kernel, threads, pass.
    Algorithm,
    /// Data layout and memory order.
    Memory,
    /// Radius, cell size and sweep, grid lines, occupancy heat map.
    Grid,
    /// Unit colors and the vertex-data rows.
    Rendering,
    /// Scenario, units, workload, speed, separation, pause, the selection hint.
    Scene,
    /// The step's headline, the timings graph, the phase table.
    Timings,
}

impl Section {
    /// Every section, top to bottom.
    pub const ALL: [Section; 6] = [
        Section::Algorithm,
        Section::Memory,
        Section::Grid,
        Section::Rendering,
        Section::Scene,
        Section::Timings,
    ];

    /// The section's header.
    pub fn title(self) -> &'static str {
        match self {
            Section::Algorithm => "Algorithm",
            Section::Memory => "Memory",
            Section::Grid => "Grid",
            Section::Rendering => "Rendering",
            Section::Scene => "Scene",
            Section::Timings => "Timings",
        }
    }

    /// The header's tooltip: what the section holds.
    pub fn tip(self) -> &'static str {
        match self {
            Section::Algorithm => "How the neighbors are found: strategy, SIMD kernel, threads and how results reach the steering. Click to open or close.",
            Section::Memory => "How the units are stored and ordered in memory: data layout and unit order. Click to open or close.",
            Section::Grid => "Query radius, cell size and the cell-size sweep, grid lines and the occupancy heat map. Click to open or close.",
            Section::Rendering => "Unit colors and the vertex data: layout, normal precision, mesh and what they cost in bytes. Click to open or close.",
            Section::Scene => "Scenario presets, unit count, workload, speed, separation and pause. Click to open or close.",
            Section::Timings => "What a step costs: the headline, the graph of recent frames and the per-phase table. Click to open or close.",
        }
    }

    /// Open on first launch: the compact state shows the algorithm and the
    /// timings, the rest is one click away.
    pub fn open_at_start(self) -> bool {
        matches!(self, Section::Algorithm | Section::Timings)
    }
}

/// The overlay's own state: a unit count being edited (applied when the
/// drag or the text edit ends, since it respawns the world), the panel's
/// height (it scrolls when the window is shorter) and which sections are
/// open (for the session; [`Overlay::default`] is the compact first-launch
/// state, [`Section::open_at_start`]).
#[derive(Clone, Debug)]
pub struct Overlay {
    units_edit: Option<usize>,
    /// The panel was collapsed to make room for the docked lessons on a
    /// narrow screen (done once per opening, so the user can expand it).
    collapsed_for_lessons: bool,
    /// Height of the panel's content in the last frame, points.
    content_height: f32,
    /// Open or closed, per [`Section::ALL`] index.
    open: [bool; 6],
}

impl Default for Overlay {
    fn default() -> Self {
        Overlay {
            units_edit: None,
            collapsed_for_lessons: false,
            content_height: 0.0,
            open: Section::ALL.map(Section::open_at_start),
        }
    }
}

impl Overlay {
    /// The overlay with every section open.
    pub fn expanded() -> Self {
        Overlay {
            open: [true; 6],
            ..Overlay::default()
        }
    }

    /// Whether `section` is open.
    pub fn is_open(&self, section: Section) -> bool {
        self.open[section as usize]
    }

    /// Opens or closes `section`.
    pub fn set_open(&mut self, section: Section, open: bool) {
        self.open[section as usize] = open;
    }

    /// Draws the overlay and the help window, editing `settings` and `view`
    /// in place; returns the user's requests and where the panels were drawn.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        settings: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
    ) -> OverlayActions {
        let mut act = OverlayActions::default();
        let places = side_windows(ctx, view, stats, &mut act);
        // The UI scale's keys work with the panel hidden too.
        super::ui_scale::shortcuts(ctx, &mut view.ui_scale);
        if view.show_overlay {
            act.panel = self.panel(ctx, settings, view, stats, &mut act);
            // The step's sweep waits while its question is open.
            if let Some(sw) = stats.sweep.as_ref().filter(|_| !stats.lessons.asking()) {
                let place = (view.show_lessons && !places.memory_open).then_some(places.upper);
                let asked = sweep::window(ctx, sw, settings.cell_size, place);
                act.actions.extend(asked.map(OverlayAction::Sweep));
            }
        }
        // After the panel, so that it opens on top of it.
        lessons_window(ctx, view, stats, places.lessons, &mut act);
        if view.embed && !view.show_overlay {
            super::embed::show(ctx, settings, stats);
        }
        act
    }

    /// The panel with every control (scrolling on a window too short for
    /// it); returns where it was drawn, points (`None` while collapsed away).
    fn panel(
        &mut self,
        ctx: &egui::Context,
        settings: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
        act: &mut OverlayActions,
    ) -> Option<egui::Rect> {
        // On a window too short for the whole panel, the panel scrolls
        // instead of losing its bottom; the height is last frame's content.
        let limit = ctx.screen_rect().height() - 80.0;
        let scroll = self.content_height > limit;
        // The height limit is part of the window's id: when the screen's
        // height changes, egui lays the window out afresh instead of keeping
        // the height it remembered for the old screen.
        let id = egui::Id::new(("overlay", limit.round() as i32));
        self.collapse_for_lessons(ctx, id, view.show_lessons);
        let mut window = egui::Window::new("Spatial Query Lab")
            .id(id)
            .default_pos([10.0, 10.0])
            .default_width(360.0)
            // Shown at once, also in a first-frame screenshot.
            .fade_in(false)
            .resizable(false);
        if scroll {
            window = window.default_height(limit).max_height(limit);
        }
        let shown = window.show(ctx, |ui| {
            let mut body = |ui: &mut egui::Ui| {
                if view.lesson_hint {
                    crate::window::ui::lesson::hint(ui, &mut view.show_lessons);
                }
                first_row(ui, view, act);
                notices(ui, stats, act);
                selected_row(ui, settings, stats, act);
                self.sections(ui, settings, view, stats, act);
            };
            self.content_height = if scroll {
                // A solid bar, always drawn, so that a panel taller than
                // the screen shows that it scrolls (egui's floating bars
                // appear only under the pointer).
                ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
                egui::ScrollArea::vertical()
                    .max_height(limit)
                    .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
                    .show(ui, |ui| body(ui))
                    .content_size
                    .y
            } else {
                body(ui);
                ui.min_rect().height()
            };
        });
        shown.map(|r| r.response.rect)
    }

    /// On a screen too narrow for the panel, the docked lessons and some
    /// scene (a projector at 1024x768 with the UI at 1.5x), collapses the
    /// panel (window `id`) to its title once each time the lessons open, so
    /// the lesson sits beside the scene; a click on the title opens it.
    fn collapse_for_lessons(&mut self, ctx: &egui::Context, id: egui::Id, lessons_open: bool) {
        let narrow = ctx.screen_rect().width() < 360.0 + dock_width(ctx.screen_rect()) + 220.0;
        if lessons_open && narrow && !self.collapsed_for_lessons {
            let mut c = egui::collapsing_header::CollapsingState::load_with_default_open(
                ctx,
                id.with("collapsing"),
                true,
            );
            c.set_open(false);
            c.store(ctx);
            self.collapsed_for_lessons = true;
        }
        if !lessons_open {
            self.collapsed_for_lessons = false;
        }
    }

    /// The collapsible sections, in [`Section::ALL`] order.
    fn sections(
        &mut self,
        ui: &mut egui::Ui,
        s: &mut Settings,
        view: &mut ViewOptions,
        stats: &FrameStats,
        act: &mut OverlayActions,
    ) {
        let Overlay {
            units_edit, open, ..
        } = self;
        for section in Section::ALL {
            let k = section as usize;
            let r = egui::CollapsingHeader::new(section.title())
                .id_salt(("overlay section", k))
                .open(Some(open[k]))
                .show(ui, |ui| match section {
                    Section::Algorithm => algorithm(ui, s, stats),
                    Section::Memory => {
                        layout_row(ui, s);
                        order_row(ui, s);
                    }
                    Section::Grid => {
                        let asked = radius_and_cell_rows(ui, s, stats);
                        act.actions.extend(asked);
                        ui.horizontal(|ui| {
                            ui.checkbox(&mut view.show_grid, "grid lines")
                                .on_hover_text("Draw the grid at the cell size (G).");
                            occupancy_box(ui, view);
                        });
                    }
                    Section::Rendering => {
                        colors_row(ui, view);
                        vertex_data::vertex_rows(ui, view, stats);
                    }
                    Section::Scene => scene(ui, units_edit, s, stats, act),
                    Section::Timings if stats.lessons.asking() => {
                        ui.label(
                            egui::RichText::new(
                                "Hidden while the lesson's question is open, so that the numbers do not answer it: answer it, or press Page Down.",
                            )
                            .color(super::predict::ASK),
                        );
                    }
                    Section::Timings => {
                        timings::headline(ui, s, stats);
                        timings::timing_graph(ui, stats);
                        timings::details(ui, s, stats);
                    }
                });
            if r.header_response.clicked() {
                open[k] = !open[k];
            }
            r.header_response.on_hover_text(section.tip());
        }
    }
}

/// The docked column's places this pass ([`dock_places`]).
struct Places {
    /// The memory view is open and has a query to show.
    memory_open: bool,
    /// The column's upper place: the memory view's, or the sweep window's.
    upper: egui::Rect,
    /// The lessons panel's place.
    lessons: egui::Rect,
}

/// The windows beside the panel, shown whether or not the panel is: help,
/// the memory view, the compare panel, the passing message and the quiet
/// measurement's banner. Returns the docked column's places.
fn side_windows(
    ctx: &egui::Context,
    view: &mut ViewOptions,
    stats: &FrameStats,
    act: &mut OverlayActions,
) -> Places {
    if view.show_help {
        help_window(ctx, &mut view.show_help, &stats.help);
    }
    // With the lessons open, the memory view and the lessons share a
    // docked right column: one above the other, never one over the other.
    // The column's upper place holds the memory view, or else the
    // cell-size sweep's window.
    let memory_open = view.show_memory && stats.memory.is_some();
    let (upper, lessons) = dock_places(ctx.screen_rect(), memory_open || stats.sweep.is_some());
    if view.show_lessons {
        act.dock = Some(egui::Rect::from_min_max(
            egui::pos2(lessons.left(), ctx.screen_rect().top()),
            ctx.screen_rect().max,
        ));
    }
    if let (true, Some(m)) = (view.show_memory, &stats.memory) {
        let place = view.show_lessons.then_some(upper);
        super::memory_view::show(
            ctx,
            &mut view.show_memory,
            &mut view.settings.cache_model,
            m,
            place,
        );
    }
    if view.show_compare {
        let state = CompareState {
            comparison: &stats.comparison,
            machine: crate::measure::machine::Machine::current(),
            measuring: stats
                .measuring
                .as_ref()
                .map(|(label, p)| (label.as_str(), *p)),
        };
        let (acts, chart) =
            super::compare::window(ctx, &mut view.show_compare, state, &mut view.chart_scale);
        act.actions
            .extend(acts.into_iter().map(OverlayAction::Compare));
        act.compare_chart = chart;
    }
    if let Some((msg, _)) = &stats.status {
        status_toast(ctx, msg);
    }
    // The panel that asked for the measurement shows its progress; the
    // banner says it where that panel is closed.
    if let Some(q) = &stats.quiet {
        let own_panel = if q.lesson {
            view.show_lessons
        } else {
            view.show_compare
        };
        if !own_panel {
            quiet_banner(ctx, q);
        }
    }
    Places {
        memory_open,
        upper,
        lessons,
    }
}

/// The lessons window while it is open (the hint goes once it was), in
/// `place` (its part of the docked column).
fn lessons_window(
    ctx: &egui::Context,
    view: &mut ViewOptions,
    stats: &FrameStats,
    place: egui::Rect,
    act: &mut OverlayActions,
) {
    if view.show_lessons {
        view.lesson_hint = false;
        let (acts, chart) =
            crate::window::ui::lesson::window(ctx, &mut view.show_lessons, &stats.lessons, place);
        act.actions
            .extend(acts.into_iter().map(OverlayAction::Lesson));
        act.lesson_chart = chart;
    }
}

/// The "share" menu: the state as a link or a command line, and the
/// lesson's presenter view.
fn share_menu(ui: &mut egui::Ui, act: &mut OverlayActions) {
    ui.menu_button("share", |ui| {
        let link = ui.button("Copy link").on_hover_text(if crate::platform::browser::IN_BROWSER {
            "Copy this page's address with the lesson, its step and every setting you changed as parameters: opening it gives the same state (F4)."
        } else {
            "Copy a link to the browser build with the lesson, its step and every setting you changed (the page from --link-base; F4)."
        });
        act.push_if(link.clicked(), OverlayAction::CopyLink);
        let line = ui
            .button("Copy command line")
            .on_hover_text("Copy the same state as the desktop program's flags: spatial-query-lab --lesson ... --step ... --units ...");
        act.push_if(line.clicked(), OverlayAction::CopyCommandLine);
        let presenter = ui.button("Presenter view").on_hover_text(if crate::platform::browser::IN_BROWSER {
            "Open the lesson's presenter view in a second window: the step, its notes, the next step, a clock; keep it on your screen and this one on the projector (F3)."
        } else {
            "Print the shown step's notes in the terminal the window was started from; each step prints its own as it opens (F3). The browser build opens a presenter window."
        });
        act.push_if(presenter.clicked(), OverlayAction::Presenter);
        if link.clicked() || line.clicked() || presenter.clicked() {
            ui.close_menu();
        }
    })
    .response
    .on_hover_text("Copy a link or a command line that reopens this state; the presenter view of a lesson.");
}

/// The panel's first row: a compact row of buttons that is always shown,
/// whatever the sections (wraps on a narrow panel). Add a button here for
/// anything that opens a window of its own.
pub fn first_row(ui: &mut egui::Ui, view: &mut ViewOptions, act: &mut OverlayActions) {
    ui.horizontal_wrapped(|ui| {
        crate::window::ui::lesson::button(ui, &mut view.show_lessons);
        let respawn = ui
            .button("respawn")
            .on_hover_text("Respawn units from the seed (R).");
        act.push_if(respawn.clicked(), OverlayAction::Respawn);
        let camera = ui
            .button("camera")
            .on_hover_text("Frame the whole world beside this panel (C).");
        act.push_if(camera.clicked(), OverlayAction::ResetCamera);
        share_menu(ui, act);
        ui.toggle_value(&mut view.show_memory, "memory")
            .on_hover_text("Memory view: the cache lines one query touches in the units' storage and the index (M).");
        ui.toggle_value(&mut view.show_compare, "compare")
            .on_hover_text("Compare panel: measure the current settings into a row (Enter), keep rows across setting changes, compare them with a baseline, export them (Markdown, CSV, JSON, chart PNG).");
        ui.toggle_value(&mut view.fullscreen, "full screen")
            .on_hover_text("Fill the screen with the window, or leave full screen (F11; --fullscreen at start).");
        if ui
            .button("?")
            .on_hover_text("Keyboard and mouse (F1).")
            .clicked()
        {
            view.show_help = !view.show_help;
        }
        ui.horizontal(|ui| {
            ui.label("UI").on_hover_text(
                "Scale of the overlay's text and controls (Ctrl+= / Ctrl+- / Ctrl+0).",
            );
            super::ui_scale::control(ui, &mut view.ui_scale);
        });
    });
}

/// The selected unit's line (with follow and deselect) while a unit is
/// selected: outside the sections, so it shows whichever are open.
fn selected_row(
    ui: &mut egui::Ui,
    settings: &Settings,
    stats: &FrameStats,
    act: &mut OverlayActions,
) {
    let Some(sel) = stats.selected else {
        return;
    };
    ui.horizontal(|ui| {
        ui.label(format!(
            "unit #{}: {} neighbors, {} enemies in range",
            sel.id, sel.neighbors, sel.enemies
        ))
        .on_hover_text("The selected unit (click another unit to select it): its neighbors within the radius and the enemies among them.");
        let follow = if sel.follow { "unfollow" } else { "follow" };
        let follow = ui
            .small_button(follow)
            .on_hover_text("Camera follows the selected unit, or stops (F).");
        act.push_if(follow.clicked(), OverlayAction::ToggleFollow);
        let deselect = ui.small_button("x").on_hover_text("Deselect (Esc).");
        act.push_if(deselect.clicked(), OverlayAction::Deselect);
    });
    if let Some(line) = sel.inspection_line() {
        ui.label(line).on_hover_text("The selected unit's query in the last step: every unit run through the distance test (magenta; the searched cells are outlined) and the ones within the radius (yellow). Naive tests every unit; a grid tests the units of the cells its block covers.");
    }
    egui::CollapsingHeader::new("code of this query")
        .id_salt("inspector code")
        .show(ui, |ui| {
            super::code::excerpts(ui, &crate::teaching::code::for_settings(settings), "inspector");
        })
        .header_response
        .on_hover_text("The source that answered this unit's query under the current settings: the strategy's rebuild and query, the kernel for this CPU, the layout's unit read.");
}

/// A passing message (a saved screenshot, a unit that died) at the bottom
/// of the window, over the scene: never inside the panel, where it would
/// push the controls down under the pointer while it shows.
/// The passing message at the bottom, above every panel and window.
fn status_toast(ctx: &egui::Context, msg: &str) {
    egui::Area::new(egui::Id::new("status"))
        .anchor(egui::Align2::CENTER_BOTTOM, [0.0, -16.0])
        .order(egui::Order::Tooltip)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.colored_label(egui::Color32::from_rgb(240, 240, 240), msg);
            });
        });
}

/// While a quiet measurement runs: a bar at the top, above every panel,
/// saying what it measures and why the scene is paused.
fn quiet_banner(ctx: &egui::Context, q: &super::stats::QuietStatus) {
    egui::Area::new(egui::Id::new("quiet banner"))
        .anchor(egui::Align2::CENTER_TOP, [0.0, 8.0])
        .order(egui::Order::Tooltip)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                let w = (ctx.screen_rect().width() * 0.5).clamp(160.0, 420.0);
                ui.set_max_width(w);
                ui.add(
                    egui::ProgressBar::new(q.progress as f32)
                        .desired_width(w)
                        .text(format!(
                            "measuring{}: {}",
                            if q.lesson { " the lesson" } else { "" },
                            q.what
                        )),
                );
                ui.label(
                    egui::RichText::new(
                        "The scene is paused so drawing does not compete; Cancel in the panel stops it.",
                    )
                    .color(egui::Color32::from_rgb(230, 230, 230)),
                );
            });
        });
}

/// The keys and mouse actions, in a window that fits the screen at any
/// size and UI scale: centered, as wide as the screen less a margin (a
/// fraction of it on a tiny screen), its rows scrolling and its descriptions
/// wrapping when they do not fit.
fn help_window(ctx: &egui::Context, open: &mut bool, rows: &[(String, &'static str)]) {
    let screen = ctx.screen_rect();
    // Room for the title bar and the window's frame.
    let w = (screen.width() - 48.0).max(screen.width() * 0.8);
    let h = (screen.height() - 96.0).max(screen.height() * 0.5);
    egui::Window::new("Keyboard and mouse")
        .open(open)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .max_width(w)
        .max_height(h)
        .show(ctx, |ui| {
            // The keys' column as wide as its widest entry (monospace: its
            // characters times one glyph's width), up to 30% of the window;
            // the descriptions wrap in the rest.
            let font = egui::TextStyle::Monospace.resolve(ui.style());
            let glyph = ui.fonts(|f| f.glyph_width(&font, 'M'));
            let chars = rows.iter().map(|(keys, _)| keys.chars().count()).max();
            let key_w = (chars.unwrap_or(0) as f32 * glyph + 12.0).min(w * 0.3);
            // A solid bar when the rows go on below the window's edge (egui's
            // floating bars appear only under the pointer).
            ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
            let scroll = egui::ScrollArea::vertical()
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::VisibleWhenNeeded);
            scroll.max_height(h).min_scrolled_height(h).show(ui, |ui| {
                ui.set_max_width(w);
                for (k, (keys, what)) in rows.iter().enumerate() {
                    let row = |ui: &mut egui::Ui| {
                        ui.set_min_width(ui.available_width());
                        ui.horizontal_top(|ui| {
                            let column = egui::Layout::top_down(egui::Align::Min);
                            ui.allocate_ui_with_layout(egui::vec2(key_w, 0.0), column, |ui| {
                                ui.set_min_width(key_w);
                                ui.add(
                                    egui::Label::new(egui::RichText::new(keys).monospace()).wrap(),
                                );
                            });
                            ui.add(egui::Label::new(*what).wrap());
                        });
                    };
                    // Every other row on a faint band, as a striped grid.
                    if k % 2 == 1 {
                        egui::Frame::new()
                            .fill(ui.visuals().faint_bg_color)
                            .show(ui, row);
                    } else {
                        row(ui);
                    }
                }
            });
        });
}
