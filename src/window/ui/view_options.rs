//! The display options the overlay edits that are not simulation
//! settings: which panels are open, the view settings of the settings
//! table, the UI scale.

use crate::settings::view::ViewSettings;

/// Display options that are not simulation settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOptions {
    /// Overlay visible.
    pub show_overlay: bool,
    /// Grid lines at the cell size.
    pub show_grid: bool,
    /// Help window visible.
    pub show_help: bool,
    /// Memory view window visible.
    pub show_memory: bool,
    /// Compare panel visible.
    pub show_compare: bool,
    /// Lessons panel visible.
    pub show_lessons: bool,
    /// The first-launch hint that points at the lessons (until they are opened).
    pub lesson_hint: bool,
    /// Embed mode: with the panel hidden, one headline number in a corner.
    pub embed: bool,
    /// Uniform scale of the unit meshes.
    pub unit_scale: f32,
    /// The view settings of the settings table: colors, vertex layout,
    /// normal bits, unit mesh, heat map, cache model.
    pub settings: ViewSettings,
    /// Scale of the overlay's text and controls, in
    /// [`UI_SCALE_RANGE`](crate::window::ui::ui_scale::UI_SCALE_RANGE)
    /// (the frame loop multiplies the display's own scale by it).
    pub ui_scale: f32,
    /// The window fills the screen (F11; the frame loop applies changes).
    pub fullscreen: bool,
    /// The compare chart's value axis (its "Save chart" too).
    pub chart_scale: crate::teaching::chart::Scale,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            settings: ViewSettings::default(),
            show_overlay: true,
            show_grid: true,
            show_help: false,
            show_memory: false,
            show_compare: false,
            show_lessons: false,
            lesson_hint: true,
            embed: false,
            unit_scale: 2.0,
            ui_scale: 1.0,
            fullscreen: false,
            chart_scale: crate::teaching::chart::Scale::Auto,
        }
    }
}
