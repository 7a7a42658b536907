//! A lesson run headless (`spatial-query-lab lesson`, the tests): each step
//! measured on its own fresh simulation through the measurement engine, as
//! `bench` measures; a sweep step steps one simulation through the sweep's
//! cell sizes, as the window does.

use super::{LessonRun, StepResult};
use crate::alloc_count;
use crate::measure::run::run_fresh;
use crate::measure::FrameRecord;
use crate::sim::memory::working_set;
use crate::sim::{Settings, Simulation};

/// Seconds per simulated frame of a headless run.
pub const DT: f32 = 1.0 / 60.0;

/// Measures step `k` of `run` headless and keeps its result. Allocates a
/// simulation (freed after).
pub fn measure_step(run: &mut LessonRun, k: usize) {
    let result = match run.sweep(k) {
        Some(mut sw) => {
            let base = run.settings(k);
            let mut sim = Simulation::new(&base);
            while let Some(cell) = sw.cell_size() {
                let s = Settings {
                    cell_size: cell,
                    cell_follows_radius: false,
                    ..base.clone()
                };
                let before = alloc_count::allocations();
                let st = sim.step(DT, &s);
                let allocations = alloc_count::allocations() - before;
                let frame = FrameRecord::headless(&st, sim.len(), sim.result_bytes(), allocations);
                sw.record(frame, || working_set(&sim));
            }
            StepResult::Sweep(Box::new(sw))
        }
        None => {
            let mut plan = run.plan(k);
            run_fresh(&mut plan, DT, |_| {});
            match plan.outcomes().first() {
                Some(o) => StepResult::Row(o.clone()),
                None => return,
            }
        }
    };
    run.record(k, result);
}

/// Measures every step of `run` in order, calling `on_step(k, run)` after
/// each (to print its text as soon as its numbers exist).
pub fn run_all(run: &mut LessonRun, mut on_step: impl FnMut(usize, &LessonRun)) {
    for k in 0..run.len() {
        measure_step(run, k);
        on_step(k, run);
    }
}
