//! Headless drivers of a [`Plan`]: each variant on a fresh simulation
//! (`bench`, the lessons on the command line), or one simulation stepped
//! through every variant (as the window does; tests).

use super::plan::{Outcome, Plan};
use super::recorder::FrameRecord;
use crate::alloc_count;
use crate::sim::memory::working_set;
use crate::sim::{Settings, Simulation};
use crate::spatial::{Kernel, Strategy};

/// Steps `sim` once with `settings` and hands the step to `plan`.
fn step_into(plan: &mut Plan, sim: &mut Simulation, settings: &Settings, dt: f32) {
    let before = alloc_count::allocations();
    let st = sim.step(dt, settings);
    let allocations = alloc_count::allocations() - before;
    let frame = FrameRecord::headless(&st, sim.len(), sim.result_bytes(), allocations);
    plan.record(frame, || working_set(sim));
}

/// Calls `on_outcome` with every outcome that became final since `seen` of
/// them did.
fn report(plan: &Plan, seen: &mut usize, on_outcome: &mut impl FnMut(&Outcome)) {
    for o in plan.finals().skip(*seen) {
        on_outcome(o);
    }
    *seen = plan.finals_len();
}

/// Measures every variant of `plan` on its own new simulation (spawned from
/// its settings) for every visit (each round spawns again, so every round
/// measures the same frames), `dt` seconds per frame, calling `on_outcome`
/// as each outcome becomes final (skipped, or measured in every round).
///
/// A variant the guards shortened steps [`Plan::take_fast_forward`]
/// untimed frames with the CSR grid and the best kernel (the simulation is
/// bit-identical for every strategy and kernel), so its last frame has the
/// same index, and so the same neighbor count, as the others'. A variant
/// whose thread count the OS refuses is skipped with the OS error, never
/// measured on fewer threads. Allocates a simulation per variant.
pub fn run_fresh(plan: &mut Plan, dt: f32, mut on_outcome: impl FnMut(&Outcome)) {
    let mut seen = 0;
    report(plan, &mut seen, &mut on_outcome);
    while let (Some(settings), Some(v)) = (plan.current().cloned(), plan.visit()) {
        let mut sim = Simulation::new(&settings);
        if let Some((asked, why)) = sim.pool_error() {
            let why = why.to_string();
            plan.skip_current(
                format!("the OS refused to start {asked} threads ({why}): not run"),
                Some(why),
            );
            report(plan, &mut seen, &mut on_outcome);
            continue;
        }
        let fast = Settings {
            strategy: Strategy::SortedGrid,
            kernel: Kernel::best(),
            ..settings.clone()
        };
        while plan.visit() == Some(v) {
            for _ in 0..plan.take_fast_forward() {
                sim.step(dt, &fast);
            }
            step_into(plan, &mut sim, &settings, dt);
        }
        report(plan, &mut seen, &mut on_outcome);
    }
}

/// Measures every variant of `plan` on `sim`, one after another without
/// respawning (units move on between variants, as in the window), `dt`
/// seconds per frame, calling `on_outcome` as each outcome becomes final. A change of the
/// unit count, workload, seed or world between variants respawns (as any
/// step with such settings does).
pub fn run_on(
    sim: &mut Simulation,
    plan: &mut Plan,
    dt: f32,
    mut on_outcome: impl FnMut(&Outcome),
) {
    let mut seen = 0;
    report(plan, &mut seen, &mut on_outcome);
    while let Some(settings) = plan.current().cloned() {
        step_into(plan, sim, &settings, dt);
        report(plan, &mut seen, &mut on_outcome);
    }
}
