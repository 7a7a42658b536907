//! The egui overlay widgets ([`overlay`]) and the cell-size sweep's ([`sweep`]). They edit a plain
//! [`crate::sim::Settings`] and read a plain [`crate::app::stats::FrameStats`];
//! they never reach into the engine. The frame loop is in [`crate::app`].

pub mod memory_view;
pub mod overlay;
pub mod sweep;

pub use overlay::{Overlay, OverlayActions, ViewOptions};
