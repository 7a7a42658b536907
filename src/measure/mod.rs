//! One way to measure: a [`Plan`] of settings variants, each stepped for a
//! settling period and then a number of counted frames ([`Recorder`]),
//! giving a [`Measurement`] per variant (per-phase median, min and max,
//! counters, working set, the exact settings) or a note saying why it was
//! skipped or shortened. `bench`, the window's cell-size sweep and its
//! compare panel all measure through it.
//!
//! The engine's side only: no clock and no window. The window steps its
//! simulation with the plan's settings (whole frames, frames spread over
//! refreshes, or on a worker thread) and hands each completed step to the
//! plan; headless callers use [`run`].

pub mod compare;
pub mod machine;
pub mod memory;
pub mod model_task;
pub mod plan;
pub mod predict;
pub mod recorder;
pub mod row;
pub mod run;
pub mod self_check;
pub mod spread;
pub mod sweep;
pub mod verdict;
pub mod working_set_sweep;

/// Time step of a measured frame, seconds (`docs/workloads.md`): 1/60.
pub const BENCH_DT: f32 = 1.0 / 60.0;

pub use plan::{Estimate, Guards, Outcome, Plan, Predictor, Skipped, Variant};
pub use recorder::{FrameRecord, Measurement, Recorder, Round, Spec};
pub use row::Row;
pub use spread::{PhaseSpreads, Spread, BUSY_SPREAD};

#[cfg(test)]
mod tests;
