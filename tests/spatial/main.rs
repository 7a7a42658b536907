//! The spatial queries against the brute-force definition: equivalence on
//! seeded and generated worlds, extreme inputs, and the hard cases of
//! docs/cases.md. Also built for AArch64 (under qemu) and wasm32-wasip1 by
//! tests/platforms.rs, so nothing here needs the window.

#[path = "../common/mod.rs"]
mod common;

mod spatial_cases;
mod spatial_equivalence;
mod spatial_extremes;
