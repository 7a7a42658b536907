//! Setting changes: the overlay's requests, scenario files, the cell-size
//! sweep, the budget guards and their notices, the limits the controls
//! offer, and how many queries a sliced frame runs per refresh.

use super::App;
use crate::engine::sim::Settings;
use crate::engine::spatial::Strategy;
use crate::measure::sweep::CellSweep;
use crate::platform::browser;
use crate::settings::budget::{self, GuardNotice};
use crate::settings::scenario;
use crate::settings::scenario::ScenarioView;
use crate::window::render::mesh::asset_dirs;
use crate::window::ui::sweep::SweepAction;
use crate::window::ui::{OverlayAction, OverlayActions, ViewOptions};

/// Naive queries per refresh when the cost model has no figure for the
/// kernel and layout (not expected: every pair is measured at start).
const NAIVE_FALLBACK_SLICE: usize = 1_000;
/// Queries of the first slice of a Grid frame after its settings changed,
/// at more units than this: a million units through AoS pointers take
/// about 330 ms of queries, which one refresh must not wait for.
const GRID_FIRST_SLICE: usize = 100_000;

/// The cell-size sweep's state in the frame loop.
#[derive(Default)]
pub(super) struct SweepState {
    /// The sweep, running or finished (shown until closed).
    pub run: Option<CellSweep>,
    /// Start the sweep after the next step (`--sweep`).
    pub at_launch: bool,
    /// The finished sweep was added to the compare panel.
    pub kept: bool,
}

impl App {
    /// Keeps where the overlay drew its panels, then carries out its
    /// requests in the order made.
    pub(super) fn overlay_actions(&mut self, a: OverlayActions) {
        self.compare.chart_rect = a.compare_chart;
        self.lessons.chart_rect = a.lesson_chart;
        self.placement.dock = a.dock;
        for action in a.actions {
            self.overlay_action(action);
        }
    }

    /// Carries out one of the overlay's requests.
    fn overlay_action(&mut self, action: OverlayAction) {
        match action {
            OverlayAction::Compare(c) => self.compare_action(c),
            OverlayAction::Lesson(l) => self.lesson_action(l),
            OverlayAction::Sweep(s) => self.sweep_action(s),
            OverlayAction::Respawn => self.respawn = true,
            OverlayAction::ResetCamera => self.frame_world(),
            OverlayAction::CopyLink => self.copy_link(),
            OverlayAction::CopyCommandLine => self.copy_command_line(),
            OverlayAction::Presenter => self.open_presenter(),
            OverlayAction::Deselect => self.selection.clear(),
            OverlayAction::ToggleFollow => self.selection.set_follow(!self.selection.follows()),
            OverlayAction::Dismiss(k) if k < self.notices.len() => {
                self.notices.remove(k);
                self.stats.notices.remove(k);
            }
            OverlayAction::Dismiss(_) => {}
            OverlayAction::LoadScenario(k) => {
                if let Some(path) = self.scenario_files.get(k).cloned() {
                    self.load_scenario(&path);
                }
            }
            OverlayAction::ReloadScenario => {
                self.list_scenarios();
                if let Some(path) = self.scenario_file.clone() {
                    self.load_scenario(&path);
                }
            }
        }
    }

    /// Finds the scenario files for the overlay's list.
    pub(super) fn list_scenarios(&mut self) {
        self.scenario_files = if browser::IN_BROWSER {
            // No file system: the presets compiled in, by name.
            scenario::bundled::names().map(Into::into).collect()
        } else {
            scenario::list(&asset_dirs())
        };
        self.stats.scenarios = self
            .scenario_files
            .iter()
            .map(|p| {
                p.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            })
            .collect();
    }

    /// Loads the scenario at `path` into the settings (respawning at the
    /// next step) and the view, or shows why it cannot be loaded and
    /// changes nothing.
    pub(super) fn load_scenario(&mut self, path: &std::path::Path) {
        match scenario::bundled::resolve(path) {
            Ok(sc) => {
                sc.apply(&mut self.settings);
                apply_view(&sc.view, &mut self.view);
                self.respawn = true;
                let description = match sc.kernel_note() {
                    Some(note) => format!("{} ({note})", sc.description)
                        .trim_start()
                        .to_string(),
                    None => sc.description,
                };
                self.stats.scenario = Some((sc.name, description));
                self.stats.scenario_error = None;
                self.scenario_file = Some(path.to_path_buf());
            }
            Err(e) => {
                self.stats.scenario_error =
                    Some(format!("{e}. The running scenario keeps running."));
            }
        }
    }

    /// Starts, applies or closes the cell-size sweep. A sweep starts from
    /// the last step (the base of its step-time predictions) with the
    /// sweep's default limits ([`crate::measure::sweep::SWEEP_SKIP_ABOVE_S`]):
    /// a slow step is spread over refreshes or run on the worker thread, so
    /// the window keeps answering, and the drawing's time is not taken from
    /// the step's (at 100,000 units the software rasterizer's 50-85 ms left
    /// no room, and every cell size was skipped). Naive (no grid) has
    /// nothing to sweep.
    pub(super) fn sweep_action(&mut self, action: SweepAction) {
        match action {
            SweepAction::Start if self.quiet.is_some() => {
                self.toast("A measurement is running: sweep when it is done.".to_string());
            }
            SweepAction::Start if self.settings.strategy != Strategy::Naive => {
                self.sweep.kept = false;
                let sweep = CellSweep::standard(&self.settings, &self.budget)
                    .with_baseline(&self.stats.step);
                self.sweep.run = Some(sweep);
            }
            SweepAction::Start => {}
            SweepAction::UseBest => {
                if let Some(best) = self.sweep.run.as_ref().and_then(CellSweep::best) {
                    self.settings.cell_size = best.cell_size;
                    self.settings.cell_follows_radius = false;
                }
                self.sweep.run = None;
            }
            SweepAction::Close => self.sweep.run = None,
            SweepAction::SaveChart | SweepAction::SaveCsv => {
                if let Some(sw) = &self.sweep.run {
                    let w = sw.work();
                    let label = format!(
                        "{} / {}, {} units",
                        w.strategy.name(),
                        w.layout.name(),
                        crate::format::thousands(w.units as u64)
                    );
                    let curves = [crate::measure::compare::SweepCurve::of(sw, label)];
                    if action == SweepAction::SaveCsv {
                        let csv = crate::measure::compare::export::curves_csv(&curves);
                        self.save_text("spatial-query-lab-sweep", "csv", Ok(csv));
                    } else {
                        let chart = crate::teaching::chart::sweep_curves(
                            &curves,
                            crate::measure::machine::Machine::current(),
                            "Cell-size sweep",
                        );
                        self.save_chart(&chart, None, "sweep");
                    }
                }
            }
        }
        self.stats.sweep.clone_from(&self.sweep.run);
    }

    /// After this frame's edits: the budget guards, and a restart of the
    /// timing means when the work changed (respawning waits for the next step).
    pub(super) fn settle(&mut self, before: &Settings) {
        let notices = budget::settle(&mut self.settings, &self.budget);
        self.add_notices(notices);
        // The lesson's notice and the headline follow the user's changes at once.
        if self.settings != *before {
            self.refresh_headline();
            if self.lessons.session.is_some() {
                self.refresh_lesson();
            }
        }
        if let Some(sw) = self.sweep.run.as_mut().filter(|sw| !sw.is_done()) {
            if !sw.matches(&self.settings) {
                sw.stop("a setting other than the cell size changed");
                self.stats.sweep.clone_from(&self.sweep.run);
            }
        }
        if !self.settings.same_work(before) || self.respawn {
            self.update_limits();
            // A picture in progress belongs to the old work: its timings are
            // recorded when it completes, and the means restart after them.
            if self.scene.is_idle() {
                self.stats.history.restart();
            } else {
                self.pacing.restart_after_picture = true;
            }
        }
    }

    /// Keeps the newest notice of each kind, in arrival order.
    pub(super) fn add_notices(&mut self, notices: Vec<GuardNotice>) {
        if notices.is_empty() {
            return;
        }
        for n in notices {
            self.notices.retain(|o| o.kind() != n.kind());
            self.notices.push(n);
        }
        self.stats.notices = self.notices.iter().map(ToString::to_string).collect();
    }

    /// A notice when the OS refused the thread count asked for (once per
    /// refusal: dismissed, it stays dismissed), gone once the asked
    /// threads run again.
    pub(super) fn note_threads(&mut self) {
        let refused = self.sim.pool_error();
        if refused.map(|r| r.0) == self.threads_refused {
            return;
        }
        self.threads_refused = refused.map(|r| r.0);
        // The slices and estimates follow the threads that run.
        self.update_limits();
        let refused = self.sim.pool_error();
        match refused {
            Some((asked, why)) => {
                let n = GuardNotice::ThreadsRefused {
                    asked,
                    ran: self.sim.threads(),
                    why: why.to_string(),
                };
                self.add_notices(vec![n]);
            }
            None => {
                self.notices.retain(|n| n.kind() != "threads");
                self.stats.notices = self.notices.iter().map(ToString::to_string).collect();
            }
        }
    }

    /// The limits the overlay's controls offer at the current settings.
    pub(super) fn update_limits(&mut self) {
        let s = &self.settings;
        // The threads that can work at once: no more than the cores, and one
        // when the OS refused the count asked for (then the frames run on one).
        let threads = match self.sim.pool_error() {
            Some((asked, _)) if asked == s.threads => 1,
            _ => s.threads.clamp(1, self.stats.cores.max(1)),
        };
        // Frames whose queries take longer than the slice budget are
        // spread over refreshes: for Naive the model's queries per refresh
        // to start with; for Grid slices of GRID_FIRST_SLICE above that many
        // units, else whole frames until one is measured too slow; then
        // adapted to the measured slices ([`App::adapt_slice`]).
        (self.query_slice, self.stats.naive_estimate_s) = if s.strategy == Strategy::Naive {
            let per_slice = self.naive_cost.slice_queries(
                s.kernel,
                s.layout,
                s.units,
                threads,
                self.budget.slice_s,
            );
            (
                per_slice.unwrap_or(NAIVE_FALLBACK_SLICE),
                self.naive_cost
                    .frame_seconds(s.kernel, s.layout, s.units, threads),
            )
        } else if s.strategy == Strategy::Grid && s.units > GRID_FIRST_SLICE {
            // Not measured yet at these settings: slices from the start,
            // growing 4x per call until the frame fits one refresh.
            (GRID_FIRST_SLICE, None)
        } else {
            (usize::MAX, None)
        };
        let world = s.world_edge();
        self.stats.radius_max = budget::max_radius(s.units, world, &self.budget);
        self.stats.cell_min =
            budget::min_cell_size(s.strategy, s.units, world, s.radius, &self.budget).0;
    }

    /// Sets the queries per refresh to what the last call's rate (`queries`
    /// queries in `slice_s` seconds) fits in the slice budget, moving by at
    /// most 4x per call, so the slices track this machine, layout and unit count
    /// rather than the cost model's small sample. A Naive or Grid frame
    /// stepped whole whose queries took longer than the budget starts the
    /// slicing; slices that grow past the unit count end it.
    pub(super) fn adapt_slice(&mut self, slice_s: f64, queries: usize) {
        if slice_s.is_nan() || slice_s <= 0.0 || queries == 0 {
            return;
        }
        let target = self.budget.slice_s;
        let sliceable = matches!(self.settings.strategy, Strategy::Naive | Strategy::Grid);
        if self.query_slice == usize::MAX {
            if sliceable && slice_s > target {
                self.query_slice = ((queries as f64 * target / slice_s) as usize).max(1);
            }
            return;
        }
        // The rate of this call, within 4x of the current size per call.
        let cur = self.query_slice as f64;
        let next = (queries as f64 * target / slice_s).clamp(cur * 0.25, cur * 4.0) as usize;
        self.query_slice =
            if next >= queries.max(self.sim.len()) && self.settings.strategy != Strategy::Naive {
                usize::MAX
            } else {
                next.max(1)
            };
    }
}

/// Writes the view values scenario `v` sets into `view`, keeping the
/// others; the next picture draws with them (a new mesh is loaded then).
pub(super) fn apply_view(v: &ScenarioView, view: &mut ViewOptions) {
    view.settings = view.settings.overlaid(v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::view::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout};

    #[test]
    fn a_scenarios_view_values_replace_only_what_it_sets() {
        use crate::settings::view::Geometry;
        let mut view = ViewOptions {
            show_grid: false,
            ..ViewOptions::default()
        };
        view.settings.heatmap = true;
        let before = view.clone();
        apply_view(&ScenarioView::default(), &mut view);
        assert_eq!(view, before);
        let sc = ScenarioView {
            color: Some(ColorMode::NormalError),
            vertex_layout: Some(VertexLayout::Uncompressed),
            normal_bits: Some(NormalPrecision::Oct8),
            mesh: Some(UnitMeshKind::Infantry),
            heatmap: Some(false),
            cache_model: Some(Geometry::Classroom),
        };
        apply_view(&sc, &mut view);
        assert_eq!(
            view,
            ViewOptions {
                settings: crate::settings::view::ViewSettings {
                    color: ColorMode::NormalError,
                    vertex_layout: VertexLayout::Uncompressed,
                    normal_bits: NormalPrecision::Oct8,
                    mesh: UnitMeshKind::Infantry,
                    heatmap: false,
                    cache_model: Geometry::Classroom,
                },
                ..before
            }
        );
    }
}
