//! The overlay's setting controls: one row per engine or view setting
//! (strategy, kernel, threads, pass, units, radius and cell, order,
//! layout, colors), each with its tooltip, editing a plain [`Settings`] and
//! [`ViewOptions`].

use egui_macroquad::egui;

use super::actions::{OverlayAction, OverlayActions};
use crate::engine::sim::{Layout, Pass, Reorder, Settings, Workload};
use crate::engine::spatial::{Kernel, Strategy, MAX_CELLS};
use crate::format::{length, thousands};
use crate::settings::budget::SLICE_BUDGET_S;
use crate::settings::rows::{Row, Section, Surfaces, ROWS, TABLE};
use crate::settings::values::NumberMut;
use crate::window::render::ColorMode;
use crate::window::ui::colors::NOTICE_COLOR;
use crate::window::ui::stats::FrameStats;
use crate::window::ui::sweep;
use crate::window::ui::timings::{allocations_text, PENDING, PENDING_TIP};
use crate::window::ui::view_options::ViewOptions;

/// Range of the unit-count slider (the `units` row's slider in the
/// settings table; the command line allows up to its range's top).
pub fn units_range() -> (usize, usize) {
    let r = TABLE.units.slider_f32();
    (*r.start() as usize, *r.end() as usize)
}

/// Range of the radius slider, world units (the `radius` row's slider);
/// the top is lowered to the pair budget's limit at large unit counts.
pub fn radius_range() -> (f32, f32) {
    let r = TABLE.radius.slider_f32();
    (*r.start(), *r.end())
}

/// Largest cell size the slider offers, world units (the `cell_size`
/// row's slider); the bottom is the smallest cell the budgets allow
/// ([`FrameStats::cell_min`]).
pub fn cell_max() -> f32 {
    *TABLE.cell_size.slider_f32().end()
}

/// The tooltip of `row`'s control: its help sentence from the settings
/// table, then what this control adds (keys, limits, the value now).
fn tip(row: &Row, more: impl std::fmt::Display) -> String {
    format!("{} {more}", row.help)
}

/// The sliders drawn from their rows alone (the settings table's `slider`
/// surface): each labeled with its key, over its row's slider range and
/// step (widened to a value set elsewhere), its help sentence as tooltip.
fn table_sliders(ui: &mut egui::Ui, s: &mut Settings) {
    for row in ROWS
        .iter()
        .filter(|r| r.section == Section::Engine && r.on.has(Surfaces::SLIDER))
    {
        let Some(sl) = row.slider else { continue };
        let label = row.key.replace('_', " ");
        let slider = match s.number_mut(row.key) {
            Some(NumberMut::F32(v)) => {
                let range = widened(sl.lo as f32, sl.hi as f32, *v);
                egui::Slider::new(v, range)
            }
            Some(NumberMut::Usize(v)) => {
                let range = widened(sl.lo as usize, sl.hi as usize, *v);
                egui::Slider::new(v, range)
            }
            Some(NumberMut::U32(v)) => {
                let range = widened(sl.lo as u32, sl.hi as u32, *v);
                egui::Slider::new(v, range)
            }
            Some(NumberMut::U64(v)) => {
                let range = widened(sl.lo as u64, sl.hi as u64, *v);
                egui::Slider::new(v, range)
            }
            None => continue,
        };
        ui.add(slider.step_by(sl.step).logarithmic(sl.log).text(label))
            .on_hover_text(row.help);
    }
}

/// The algorithm section: strategy, kernel, threads and pass.
pub(super) fn algorithm(ui: &mut egui::Ui, s: &mut Settings, stats: &FrameStats) {
    strategy_row(ui, s, stats);
    kernel_row(ui, s);
    ui.horizontal(|ui| {
        if cfg!(target_family = "wasm") {
            // No threads in the browser: the simulation refuses more than one.
            s.threads = 1;
            ui.add_enabled(false, egui::Slider::new(&mut s.threads, 1..=1).text("threads"))
                .on_disabled_hover_text("One thread in the browser: WebAssembly threads need a cross-origin-isolated page and a loader that shares memory between workers, which this build's loader (macroquad's) does not have. Run the desktop build to compare thread counts.");
        } else {
            let max_threads = stats.cores.max(s.threads).max(1);
            ui.add(egui::Slider::new(&mut s.threads, 1..=max_threads).text("threads"))
                .on_hover_text(tip(&TABLE.threads, "Rayon's pool; key T."));
        }
        pass_row(ui, s, stats);
    });
}

/// The scene section: scenario, units, workload (and the battle's churn),
/// speed, separation, pause, and the hint to click a unit.
pub(super) fn scene(
    ui: &mut egui::Ui,
    units_edit: &mut Option<usize>,
    s: &mut Settings,
    stats: &FrameStats,
    act: &mut OverlayActions,
) {
    scenario_row(ui, stats, act);
    units_row(ui, units_edit, s);
    egui::ComboBox::from_label("workload")
        .selected_text(s.workload.key())
        .show_ui(ui, |ui| {
            for w in Workload::ALL {
                ui.selectable_value(&mut s.workload, w, w.key());
            }
        })
        .response
        .on_hover_text(tip(
            &TABLE.workload,
            "uniform is the common case; battle churns every frame.",
        ));
    if s.workload == Workload::Battle {
        let (d, sp) = stats.churn_per_s;
        ui.label(format!(
            "battle: {d:.0} deaths/s, {sp:.0} spawns/s, {} allocations in the last step",
            allocations_text(stats.step_allocations, stats.is_current(s))
        ))
        .on_hover_text("Units with more enemies than friends in range for 0.5 s die; each is removed by swap-and-pop from every array of the layout at the start of the next step, and a reinforcement spawns at its team's edge. AoS pointers allocate one Box per reinforcement; the other layouts reuse their arrays' capacity.");
    }
    table_sliders(ui, s);
    ui.checkbox(&mut s.paused, "pause")
        .on_hover_text(tip(&TABLE.paused, "Key Space."));
    if stats.selected.is_none() {
        ui.label(egui::RichText::new("Click a unit to show its query circle and neighbors.").weak())
            .on_hover_text("Picking: the unit under the pointer is selected; its query circle, the cells it searched, the units it tested (magenta) and its neighbors (yellow) are drawn. Esc deselects.");
    }
}

/// The unit count: a slider and a number box, applied when the drag ends
/// or the edit is committed (Enter or focus lost), never per keystroke
/// (`units_edit` holds the value being dragged).
pub(super) fn units_row(ui: &mut egui::Ui, units_edit: &mut Option<usize>, s: &mut Settings) {
    let current = units_edit.unwrap_or(s.units);
    // Each widget edits its own copy: the slider clamps to its range, and
    // a value typed or dragged in the box must not pass through it.
    let (mut from_slider, mut from_box) = (current, current);
    let hint = tip(
        &TABLE.units,
        "Applied when you let go of the slider or press Enter.",
    );
    ui.horizontal(|ui| {
        let slider = ui
            .add(
                egui::Slider::new(
                    &mut from_slider,
                    widened(units_range().0, units_range().1, current),
                )
                .logarithmic(true)
                .show_value(false),
            )
            .on_hover_text(&hint);
        let shown = from_slider as f64;
        slider.widget_info(|| egui::WidgetInfo::slider(true, shown, "units"));
        let number = ui
            .add(
                egui::DragValue::new(&mut from_box)
                    .range(1..=1_000_000)
                    .speed(50.0)
                    .update_while_editing(false),
            )
            .on_hover_text(&hint);
        ui.label("units");
        for (r, v) in [(&slider, from_slider), (&number, from_box)] {
            if r.dragged() {
                *units_edit = Some(v);
            } else if r.drag_stopped() || r.changed() {
                s.units = v.max(1);
                *units_edit = None;
            }
        }
    });
}

/// `lo..=hi`, widened to include `current` (a value set elsewhere, e.g. on
/// the command line, is shown as it is, not clamped by the widget).
pub(super) fn widened<T: PartialOrd + Copy>(
    lo: T,
    hi: T,
    current: T,
) -> std::ops::RangeInclusive<T> {
    let lo = if current < lo { current } else { lo };
    let hi = if current > hi { current } else { hi };
    lo..=hi
}

/// The top of the radius slider: [`radius_range`]'s, lowered to the pair
/// budget's limit at the current unit count (`radius_max`, world units).
pub fn radius_top(radius_max: f32) -> f32 {
    let (lo, hi) = radius_range();
    hi.min(radius_max).max(lo)
}

pub(super) fn notices(ui: &mut egui::Ui, stats: &FrameStats, act: &mut OverlayActions) {
    for (k, text) in stats.notices.iter().enumerate() {
        ui.horizontal(|ui| {
            if ui
                .small_button("x")
                .on_hover_text("Dismiss this message.")
                .clicked()
            {
                act.actions.push(OverlayAction::Dismiss(k));
            }
            ui.add(egui::Label::new(egui::RichText::new(text).color(NOTICE_COLOR)).wrap());
        });
    }
    if !stats.notices.is_empty() {
        ui.separator();
    }
}

/// The scenario presets of `assets/scenarios/`: a combo to load one, a
/// button to read the loaded file again after editing it, its description,
/// and the last load's error (in red; the running scenario keeps running).
pub(super) fn scenario_row(ui: &mut egui::Ui, stats: &FrameStats, act: &mut OverlayActions) {
    ui.horizontal(|ui| {
        let current = stats.scenario.as_ref().map_or("(none)", |(n, _)| n.as_str());
        egui::ComboBox::from_label("scenario")
            .selected_text(current)
            .show_ui(ui, |ui| {
                if stats.scenarios.is_empty() {
                    ui.label("no files in assets/scenarios/");
                }
                for (k, name) in stats.scenarios.iter().enumerate() {
                    if ui.selectable_label(name == current, name).clicked() {
                        act.actions.push(OverlayAction::LoadScenario(k));
                    }
                }
            })
            .response
            .on_hover_text("Presets from assets/scenarios/*.toml: units, workload, seed, world, radius, cell size, speed, separation and strategy (respawns). Edit a file and press reload to see the change.");
        if cfg!(target_family = "wasm") {
            // The browser's presets are compiled in: nothing to re-read.
            return;
        }
        let reload = ui
            .add_enabled(stats.scenario.is_some(), egui::Button::new("reload"))
            .on_hover_text("Read the loaded scenario's file again (after editing it).")
            .on_disabled_hover_text("Reads the loaded scenario's file again; no scenario is loaded (pick one from the list, or start with --scenario).");
        act.push_if(reload.clicked(), OverlayAction::ReloadScenario);
    });
    if let Some((_, d)) = stats.scenario.as_ref().filter(|(_, d)| !d.is_empty()) {
        ui.label(egui::RichText::new(d).weak());
    }
    if let Some(e) = &stats.scenario_error {
        ui.add(egui::Label::new(egui::RichText::new(e).color(egui::Color32::LIGHT_RED)).wrap());
    }
}

pub(super) fn strategy_row(ui: &mut egui::Ui, s: &mut Settings, stats: &FrameStats) {
    ui.horizontal(|ui| {
        ui.label("Strategy")
            .on_hover_text(tip(&TABLE.strategy, "Keys 1, 2, 3."));
        for st in Strategy::ALL {
            let mut tip = st.describe().to_string();
            if let (Strategy::Naive, Some(est)) = (st, stats.naive_estimate_s) {
                if est > SLICE_BUDGET_S {
                    tip.push_str(&format!(
                        "\n\nAt {} units one naive frame takes about {:.1} s (estimate): its queries are spread over about {:.0} refreshes of at most {:.0} ms each, so the window keeps answering. The units move once per whole frame.",
                        thousands(s.units as u64),
                        est,
                        (est / SLICE_BUDGET_S).ceil(),
                        SLICE_BUDGET_S * 1e3
                    ));
                }
            }
            let resp = ui
                .selectable_label(s.strategy == st, st.name())
                .on_hover_text(tip);
            if resp.clicked() {
                s.strategy = st;
            }
        }
    });
}

/// The kernel label's note on the kernels of other builds.
const OTHER_KERNELS: &str = " Each build has its machine's kernels: Scalar everywhere, SSE, AVX2 and AVX-512 on x86_64 (where the CPU has them), NEON on ARM, SIMD128 in the browser build.";

pub(super) fn kernel_row(ui: &mut egui::Ui, s: &mut Settings) {
    ui.horizontal(|ui| {
        let unused = s.strategy == Strategy::Grid
            || (s.strategy == Strategy::Naive
                && matches!(s.layout, Layout::Aos | Layout::AosPointers));
        let label = if unused {
            egui::RichText::new("Kernel (unused)").weak()
        } else {
            egui::RichText::new("Kernel")
        };
        ui.label(label).on_hover_text(tip(&TABLE.kernel, format!("{}{OTHER_KERNELS}", if unused {
            "Key K cycles. Unused now: Grid, and Naive through an AoS layout, read one candidate at a time through the layout; SIMD kernels need positions in dense arrays (SoA, hot/cold, or SortedGrid's packed copy)."
        } else {
            "Key K cycles."
        })));
        // This architecture's kernels; the others are named in the tooltip
        // (a row of every kernel would widen the panel over the world).
        for &k in Kernel::native() {
            let resp = ui
                .add_enabled(
                    k.is_available(),
                    egui::SelectableLabel::new(s.kernel == k, k.name()),
                )
                .on_hover_text(format!("{} lane(s) per instruction", k.lanes()))
                .on_disabled_hover_text(k.absent_reason().unwrap_or_default());
            if resp.clicked() {
                s.kernel = k;
            }
        }
    });
}

/// Radius and cell size: both sliders offer only values the engine uses as
/// given (the radius up to the pair budget's limit, the cell size down to the
/// grid's smallest), with two decimals everywhere.
pub(super) fn radius_and_cell_rows(
    ui: &mut egui::Ui,
    s: &mut Settings,
    stats: &FrameStats,
) -> Option<OverlayAction> {
    let r_max = radius_top(stats.radius_max);
    let range = widened(radius_range().0, r_max, s.radius);
    ui.add(
        egui::Slider::new(&mut s.radius, range)
            .logarithmic(true)
            .custom_formatter(|v, _| length(v as f32))
            .text("query radius"),
    )
    .on_hover_text(tip(
        &TABLE.radius,
        format!(
            "In world units (keys - and =); a neighbor is within dx² + dz² <= r². Up to {} here: larger radii would find more than 40 million pairs per frame at this unit count.",
            length(r_max)
        ),
    ));
    let c_min = stats.cell_min.min(cell_max());
    ui.horizontal(|ui| {
        let range = widened(c_min, cell_max(), s.cell_size);
        let cell = ui
            .add(
                egui::Slider::new(&mut s.cell_size, range)
                    .logarithmic(true)
                    .custom_formatter(|v, _| length(v as f32))
                    .text("cell size"),
            )
            .on_hover_text(tip(&TABLE.cell_size, format!(
                "In world units (keys [ and ]); the grid rebuilds with it on the next frame. Small cells: fewer candidates, more cells to visit; large cells: many candidates (a query's block spans about 1 + 2r / cell cells per axis: 3 at r, 1.5 at 4r). SortedGrid's fused pass searches one block per cell for all its units, the union of their blocks, which grows with cell / r (3 x 3 cells at 2r and 4r); so where a cell's units need different cells and the cell holds enough of them, it searches each unit's own block, like Grid: at 4r 11.4 candidates per neighbor for both instead of 44.5 (100,000 uniform units, 2026-12-01). Down to {} here: the grid has at most {} cells over the world, and a tiny cell with a large radius would visit too many.",
                length(c_min),
                thousands(MAX_CELLS as u64)
            )));
        if cell.changed() {
            s.cell_follows_radius = false;
        }
        // The frame loop's guards make the cell follow the radius while this is on.
        ui.toggle_value(&mut s.cell_follows_radius, "= r")
            .on_hover_text("Keep the cell size equal to the query radius, also when the radius changes.");
    });
    // The sweep's button shares the grid's row (the panel has no height to
    // spare); Naive, which has no grid, shows it disabled in its place.
    let current = stats.is_current(s);
    let grid = stats.step.grid.filter(|g| current && g.cells() > 0);
    if grid.is_none() && current && s.strategy != Strategy::Naive {
        return None;
    }
    ui.horizontal_wrapped(|ui| {
        if !current && s.strategy != Strategy::Naive {
            ui.label(format!("grid: {PENDING}"))
                .on_hover_text(PENDING_TIP);
        }
        if let Some(g) = grid {
            ui.label(format!(
                "grid: {} x {} = {} cells of {}",
                g.nx,
                g.nz,
                thousands(g.cells() as u64),
                length(g.cell)
            ))
            .on_hover_text(
                "The grid the last frame used: columns x rows, and the cell edge in world units.",
            );
        }
        let cell = sweep::button(ui, s, stats).map(OverlayAction::Sweep);
        let ws = ws_button(ui, s, stats).then_some(OverlayAction::Compare(
            crate::window::ui::compare::CompareAction::WorkingSetSweep,
        ));
        cell.or(ws)
    })
    .inner
}

/// The "Working-set sweep" button with its tooltip; true when clicked.
/// Disabled for Naive and while a measurement runs.
fn ws_button(ui: &mut egui::Ui, s: &Settings, stats: &FrameStats) -> bool {
    use crate::measure::working_set_sweep as ws;
    let busy = stats.quiet.is_some();
    ui.add_enabled(
        s.strategy != Strategy::Naive && !busy,
        egui::Button::new("Working-set sweep"),
    )
    .on_hover_text(format!(
        "Measure the query at unit counts chosen from this machine's caches, so the working set runs from {}x the L1d to {}x the last-level cache (or the {} unit limit), for the current strategy, layout and order: {} rounds of {} frames after {} settling ones per count, each on a fresh simulation with the scene paused. The curve of ns per unit against the working set, with the cache sizes marked, goes to the compare panel, where sweeps of other layouts or orders overlay it. The `caches` lesson does this for AoS and SoA in both orders.",
        ws::FROM_L1D,
        ws::TO_LLC,
        thousands(crate::settings::scenario::MAX_UNITS as u64),
        ws::ROUNDS,
        ws::FRAMES,
        ws::SETTLE
    ))
    .on_disabled_hover_text(if busy {
        "A measurement is running: wait for it or cancel it."
    } else {
        "Naive's cost grows with the square of the units: choose Grid or SortedGrid."
    })
    .clicked()
}

/// How units are colored.
pub(super) fn colors_row(ui: &mut egui::Ui, view: &mut ViewOptions) {
    let short = match view.settings.color {
        ColorMode::Team => "team",
        ColorMode::NeighborHeat => "heat",
        ColorMode::MemoryOrder => "memory",
        ColorMode::NormalError => "normal error",
    };
    egui::ComboBox::from_id_salt("colors")
        .selected_text(format!("colors: {short}"))
        .show_ui(ui, |ui| {
            for m in ColorMode::ALL {
                ui.selectable_value(&mut view.settings.color, m, m.name())
                    .on_hover_text(m.describe());
            }
        })
        .response
        .on_hover_text(tip(
            &TABLE.color,
            format!(
                "Key V cycles. Now {}: {}",
                view.settings.color.name(),
                view.settings.color.describe()
            ),
        ));
}

/// The cell occupancy heat map's switch.
pub(super) fn occupancy_box(ui: &mut egui::Ui, view: &mut ViewOptions) {
    ui.checkbox(&mut view.settings.heatmap, "occupancy")
        .on_hover_text(tip(&TABLE.heatmap, "Dark blue: few; white: twice the mean of the occupied cells or more; empty cells clear. Nothing for Naive, which has no cells (key O)."));
}

pub(super) fn order_row(ui: &mut egui::Ui, s: &mut Settings) {
    let (lo, hi) = TABLE
        .reorder_every
        .slider
        .map_or((1.0, 240.0), |sl| (sl.lo, sl.hi));
    let every = widened(lo as u32, hi as u32, s.reorder_every);
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("reorder")
            .selected_text(format!("order: {}", s.reorder.key()))
            .show_ui(ui, |ui| {
                for r in Reorder::ALL {
                    ui.selectable_value(&mut s.reorder, r, r.key());
                }
            })
            .response
            .on_hover_text(tip(&TABLE.reorder, "Every array of the layout is reordered; choosing off puts sorted units back in spawn order at the next step. resident permutes the units in the rebuild (after the first frame, by merging the ~1% that changed cell into last frame's order), with no separate reorder, no copy of positions into the grid and no gather of results. Sorted orders make queries and steering cache-friendly."));
        ui.add_enabled(
            s.reorder != Reorder::Off
                && !(s.reorder == Reorder::Resident
                    && s.layout == crate::engine::sim::Layout::Soa
                    && s.strategy == Strategy::SortedGrid),
            egui::Slider::new(&mut s.reorder_every, every)
                .logarithmic(true)
                .text("every N frames"),
        )
        .on_hover_text(tip(&TABLE.reorder_every, "Movement scatters a sorted order slowly, so a sort every few frames keeps most of the benefit for a fraction of its cost."))
        .on_disabled_hover_text("Not used: the units are kept in spawn order (order: off), or the rebuild keeps them in cell order every frame (order: resident with SoA and SortedGrid).");
    });
}

pub(super) fn layout_row(ui: &mut egui::Ui, s: &mut Settings) {
    let resp = egui::ComboBox::from_id_salt("layout")
        .selected_text(format!("layout: {}", s.layout.name()))
        .show_ui(ui, |ui| {
            for l in Layout::ALL {
                ui.selectable_value(&mut s.layout, l, l.name())
                    .on_hover_text(l.describe());
            }
        })
        .response;
    resp.on_hover_text(tip(&TABLE.layout, format!(
        "Key L. Naive and Grid read every candidate's position through it; SortedGrid copies positions into cell order once per frame and queries its packed copy (with order resident and SoA, it keeps the units themselves in cell order instead). Now: {}",
        s.layout.describe()
    )));
}

pub(super) fn pass_row(ui: &mut egui::Ui, s: &mut Settings, st: &FrameStats) {
    let bytes = if st.is_current(s) {
        crate::format::bytes(st.result_bytes as usize)
    } else {
        PENDING.to_string()
    };
    let resp = egui::ComboBox::from_id_salt("pass")
        .selected_text(format!("{} · {bytes}", s.pass.name()))
        .show_ui(ui, |ui| {
            for p in Pass::ALL {
                ui.selectable_value(&mut s.pass, p, p.name())
                    .on_hover_text(p.explain());
            }
        })
        .response;
    resp.on_hover_text(tip(
        &TABLE.pass,
        format!(
            "Key P; beside it, the bytes of results the last frame wrote. Now: {}",
            s.pass.explain()
        ),
    ));
}
