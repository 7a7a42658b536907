//! The engine's tests (simulation, layouts, passes, compression, lessons,
//! bench), one binary: each file is a module.

#[path = "../common/mod.rs"]
mod common;

mod amortized;
mod bench_mode;
mod cell_size;
mod compress;
mod fused_blocks;
mod layouts;
mod lesson_claims;
mod lessons;
mod named_sets;
mod resident_rebuild;
mod respawn;
mod scenarios;
