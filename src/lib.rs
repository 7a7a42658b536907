//! Spatial Query Lab: fixed-radius neighbor queries for many moving units
//! (naive scan, uniform grids, SIMD kernels) and the compressed vertex streams
//! used to draw them.
//!
//! The engine modules ([`sim`], [`spatial`], [`compress`], [`mod@bench`]) never touch
//! the window; only [`render`], [`ui`] and the binary do.

pub mod alloc_count;
pub mod bench;
pub mod compress;
pub mod render;
pub mod sim;
pub mod spatial;
pub mod ui;
