//! The egui overlay widgets: the panel and its controls ([`overlay`]), its
//! numbers and graph of the last frames ([`timings`]), its vertex-data rows
//! ([`vertex_data`]), the cell-size sweep's window ([`sweep`]), the compare
//! panel ([`compare`]), the lessons panel ([`lesson`]) and its predictions ([`predict`]), the memory view
//! ([`memory_view`]) and the UI scale ([`ui_scale`]); the display options they edit
//! ([`view_options`]), the lessons' actions ([`lesson_action`]) and the shared colors
//! ([`colors`]). They edit a plain
//! [`crate::engine::sim::Settings`] and read a plain [`stats::FrameStats`], which the
//! frame loop ([`crate::window::app`]) fills; they never reach into the engine or
//! back up into the frame loop.

pub mod code;
pub mod colors;
pub mod compare;
pub mod embed;
pub mod lesson;
pub mod lesson_action;
pub mod memory_view;
pub mod overlay;
pub mod plot;
pub mod predict;
pub mod stats;
pub mod sweep;
pub mod timings;
pub mod ui_scale;
pub mod vertex_data;
pub mod view_options;

pub use overlay::{Overlay, OverlayAction, OverlayActions, Section, ViewOptions};
pub use ui_scale::UI_SCALE_RANGE;
