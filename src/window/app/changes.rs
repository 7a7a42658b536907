//! Setting changes: the overlay's requests dispatched to their owners,
//! and what follows every frame's edits ([`App::settle`]: the budget
//! guards, the lesson's page, the sweep, the timing means).

use super::App;
use crate::engine::sim::Settings;
use crate::settings::budget;
use crate::settings::scenario::ScenarioView;
use crate::window::ui::{OverlayAction, OverlayActions, ViewOptions};

impl App {
    /// Keeps where the overlay drew its panels, then carries out its
    /// requests in the order made.
    pub(super) fn overlay_actions(&mut self, a: OverlayActions) {
        self.compare.chart_rect = a.compare_chart;
        self.lessons.chart_rect = a.lesson_chart;
        self.ui.placement.dock = a.dock;
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
            OverlayAction::Respawn => self.stepping.respawn = true,
            OverlayAction::ResetCamera => self.frame_world(),
            OverlayAction::CopyLink => self.copy_link(),
            OverlayAction::CopyCommandLine => self.copy_command_line(),
            OverlayAction::Presenter => self.open_presenter(),
            OverlayAction::Deselect => self.picking.selection.clear(),
            OverlayAction::ToggleFollow => {
                let selection = &mut self.picking.selection;
                selection.set_follow(!selection.follows());
            }
            OverlayAction::Dismiss(k) => self.guards.dismiss(k, &mut self.stats.notices),
            OverlayAction::LoadScenario(k) => {
                if let Some(path) = self.scenarios.file_at(k) {
                    self.load_scenario(&path);
                }
            }
            OverlayAction::ReloadScenario => {
                self.list_scenarios();
                if let Some(path) = self.scenarios.file.clone() {
                    self.load_scenario(&path);
                }
            }
        }
    }

    /// After this frame's edits: the budget guards, and a restart of the
    /// timing means when the work changed (respawning waits for the next step).
    pub(super) fn settle(&mut self, before: &Settings) {
        let notices = budget::settle(&mut self.settings, &self.guards.budget);
        self.add_notices(notices);
        // The lesson's notice and the headline follow the user's changes at once.
        if self.settings != *before {
            self.refresh_headline();
            if self.lessons.session.is_some() {
                self.refresh_lesson();
            }
        }
        if self.sweep.stop_unless_matching(&self.settings) {
            self.stats.sweep.clone_from(&self.sweep.run);
        }
        if !self.settings.same_work(before) || self.stepping.respawn {
            self.update_limits();
            // A picture in progress belongs to the old work: its timings are
            // recorded when it completes, and the means restart after them.
            if self.picture.scene.is_idle() {
                self.stats.history.restart();
            } else {
                self.picture.pacing.restart_after_picture = true;
            }
        }
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
