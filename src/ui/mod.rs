//! The window side: the egui overlay ([`overlay`]) and the frame loop
//! ([`app`]). The overlay edits a plain [`crate::sim::Settings`] and reads a
//! plain [`FrameStats`]; it never reaches into the engine.

pub mod app;
pub mod overlay;

pub use overlay::{FrameStats, Overlay, OverlayActions, ViewOptions};
