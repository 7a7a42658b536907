//! The egui overlay widgets ([`overlay`]), the cell-size sweep's
//! ([`sweep`]) and the memory view's ([`memory_view`]). They edit a plain
//! [`crate::sim::Settings`] and read a plain [`stats::FrameStats`], which the
//! frame loop ([`crate::app`]) fills; they never reach into the engine or
//! back up into the frame loop.

pub mod memory_view;
pub mod overlay;
pub mod stats;
pub mod sweep;

pub use overlay::{Overlay, OverlayActions, ViewOptions};
