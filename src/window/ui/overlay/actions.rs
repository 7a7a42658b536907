//! What one overlay pass returns to the frame loop: the requests the user
//! made, in the order made, and where the panels were drawn.

use egui_macroquad::egui;

use crate::window::ui::compare::CompareAction;
use crate::window::ui::lesson::LessonAction;
use crate::window::ui::sweep::SweepAction;

/// One request from the overlay that the frame loop carries out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OverlayAction {
    /// A request of the compare panel.
    Compare(CompareAction),
    /// A request of the lessons panel.
    Lesson(LessonAction),
    /// Start, apply or close the cell-size sweep.
    Sweep(SweepAction),
    /// Respawn the units with the current settings.
    Respawn,
    /// Re-frame the camera on the world.
    ResetCamera,
    /// Clear the selected unit.
    Deselect,
    /// Start or stop the camera following the selected unit.
    ToggleFollow,
    /// Dismiss the notice with this index of
    /// [`FrameStats::notices`](crate::window::ui::stats::FrameStats::notices).
    Dismiss(usize),
    /// Load the scenario with this index of
    /// [`FrameStats::scenarios`](crate::window::ui::stats::FrameStats::scenarios).
    LoadScenario(usize),
    /// Read the loaded scenario's file again (and the folder's list).
    ReloadScenario,
    /// Copy a link to the current state (F4).
    CopyLink,
    /// Copy the current state as a command line.
    CopyCommandLine,
    /// Open the presenter view (F3).
    Presenter,
}

/// The result of one overlay pass ([`super::Overlay::show`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OverlayActions {
    /// The user's requests, in the order made (at most a few per pass).
    pub actions: Vec<OverlayAction>,
    /// Where the compare chart was drawn this pass, points.
    pub compare_chart: Option<egui::Rect>,
    /// Where the lesson chart was drawn this pass, points.
    pub lesson_chart: Option<egui::Rect>,
    /// Where the panel was drawn this pass, points (`None` while hidden):
    /// the camera frames the world beside it.
    pub panel: Option<egui::Rect>,
    /// The right column the lessons panel is docked in (with the memory
    /// view above it), points, while the lessons panel is open: the camera
    /// keeps the scene and the selected unit out of it.
    pub dock: Option<egui::Rect>,
}

impl OverlayActions {
    /// Adds `action` when `clicked`.
    pub fn push_if(&mut self, clicked: bool, action: OverlayAction) {
        if clicked {
            self.actions.push(action);
        }
    }

    /// The compare panel's requests, in the order made.
    pub fn compare(&self) -> impl Iterator<Item = CompareAction> + '_ {
        self.actions.iter().filter_map(|a| match a {
            OverlayAction::Compare(c) => Some(*c),
            _ => None,
        })
    }

    /// The lessons panel's requests, in the order made.
    pub fn lesson(&self) -> impl Iterator<Item = LessonAction> + '_ {
        self.actions.iter().filter_map(|a| match a {
            OverlayAction::Lesson(l) => Some(*l),
            _ => None,
        })
    }

    /// Whether the pass asked for `action`.
    pub fn contains(&self, action: OverlayAction) -> bool {
        self.actions.contains(&action)
    }
}
