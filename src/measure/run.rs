//! Drivers of a [`Plan`] or a [`CellSweep`]: each visit on a fresh
//! simulation ([`Fresh`]: `bench`, the lessons, the window's quiet
//! measurements), or one simulation stepped through every variant (as the
//! window's live sweep does; tests). A [`Job`] is a list of plans and
//! sweeps measured one after another on fresh simulations, a frame per
//! call, so a caller can run it to the end (headless), on a worker thread
//! or a few frames per refresh (the browser).

use super::model_task::ModelTask;
use super::plan::{Outcome, Plan};
use super::recorder::FrameRecord;
use super::sweep::CellSweep;
use crate::engine::sim::{Settings, Simulation, Slicing, StepProgress};
use crate::engine::spatial::{Kernel, Strategy};
use crate::measure::memory::working_set;
use crate::platform::alloc_count;

/// Steps `sim` once with `settings`; returns the frame's record parts.
fn step_counted(
    sim: &mut Simulation,
    settings: &Settings,
    dt: f32,
) -> (crate::engine::sim::StepStats, u64) {
    let before = alloc_count::allocations();
    let st = sim.step(dt, settings);
    (st, alloc_count::allocations() - before)
}

/// Calls `on_outcome` with every outcome that became final since `seen` of
/// them did.
fn report(plan: &Plan, seen: &mut usize, on_outcome: &mut impl FnMut(&Outcome)) {
    for o in plan.finals().skip(*seen) {
        on_outcome(o);
    }
    *seen = plan.finals_len();
}

/// A fresh simulation for every visit of a plan or sweep: spawned from the
/// visit's settings when the visit begins, so every round measures the same
/// frames, and dropped when the next visit begins.
#[derive(Default)]
pub struct Fresh {
    sim: Option<Simulation>,
    visit: Option<usize>,
    /// Frames are stepped on a worker thread (for [`FrameRecord::worker`]).
    pub worker: bool,
    /// Spread long Naive and Grid frames over calls ([`Simulation::step_sliced`],
    /// [`slicing_for`]): where the measurement runs in the window's own
    /// thread (the browser), so that no refresh waits for a whole frame.
    pub sliced: bool,
}

/// Candidate tests per slice of a sliced frame, about: 20 million, some 20
/// to 40 ms.
const TESTS_PER_SLICE: f64 = 2e7;

/// How a sliced measurement spreads the frames of `s`: about
/// `TESTS_PER_SLICE` candidate tests per call (Naive tests every unit per
/// query; Grid about 45 at the standard density), 30 ms.
pub fn slicing_for(s: &Settings) -> Slicing {
    let per_query = match s.strategy {
        crate::engine::spatial::Strategy::Naive => s.units.max(1) as f64,
        _ => 45.0,
    };
    Slicing {
        queries: ((TESTS_PER_SLICE / per_query) as usize).max(64),
        seconds: 0.03,
    }
}

impl Fresh {
    /// The simulation of visit `visit` with `settings` (spawned when the
    /// visit is new), or the OS's refusal of its thread count.
    fn sim_for(
        &mut self,
        visit: usize,
        settings: &Settings,
    ) -> Result<&mut Simulation, (usize, String)> {
        if self.visit != Some(visit) || self.sim.is_none() {
            self.sim = None;
            let sim = Simulation::new(settings);
            if let Some((asked, why)) = sim.pool_error() {
                return Err((asked, why.to_string()));
            }
            self.sim = Some(sim);
            self.visit = Some(visit);
        }
        Ok(self.sim.as_mut().expect("set above"))
    }

    /// Steps one frame of `plan`'s current visit, `dt` seconds, and hands
    /// it to the plan; false when the plan is done. A visit the guards
    /// shortened first steps [`Plan::take_fast_forward`] untimed frames with
    /// the CSR grid and the best kernel (the simulation is bit-identical for
    /// every strategy and kernel), so its last frame has the same index, and
    /// so the same neighbor count, as the others'. A visit whose thread
    /// count the OS refuses is skipped with the OS error, never measured on
    /// fewer threads.
    pub fn step_plan(&mut self, plan: &mut Plan, dt: f32) -> bool {
        let (Some(settings), Some(visit)) = (plan.current().cloned(), plan.visit()) else {
            return false;
        };
        let (worker, sliced) = (self.worker, self.sliced);
        let sim = match self.sim_for(visit, &settings) {
            Ok(sim) => sim,
            Err((asked, why)) => {
                plan.skip_current(
                    format!("the OS refused to start {asked} threads ({why}): not run"),
                    Some(why),
                );
                return !plan.is_done();
            }
        };
        let fast = Settings {
            strategy: Strategy::SortedGrid,
            kernel: Kernel::best(),
            ..settings.clone()
        };
        for _ in 0..plan.take_fast_forward() {
            sim.step(dt, &fast);
        }
        let Some((st, allocations)) = step_maybe_sliced(sim, &settings, dt, sliced) else {
            return true;
        };
        let frame = frame_of(&st, sim, allocations, worker);
        plan.record(frame, || working_set(sim));
        !plan.is_done()
    }

    /// Steps one frame of `sweep`'s current cell size (a fresh simulation
    /// per visit, as [`Fresh::step_plan`]) and hands it to the sweep; false
    /// when the sweep is done.
    pub fn step_sweep(&mut self, sweep: &mut CellSweep, dt: f32) -> bool {
        let (Some(settings), Some(visit)) = (sweep.current().cloned(), sweep.visit()) else {
            return false;
        };
        let (worker, sliced) = (self.worker, self.sliced);
        let sim = match self.sim_for(visit, &settings) {
            Ok(sim) => sim,
            Err((asked, why)) => {
                sweep.stop(format!("the OS refused to start {asked} threads ({why})"));
                return false;
            }
        };
        let Some((st, allocations)) = step_maybe_sliced(sim, &settings, dt, sliced) else {
            return true;
        };
        let frame = frame_of(&st, sim, allocations, worker);
        sweep.record(frame, || working_set(sim));
        !sweep.is_done()
    }
}

/// The record of the frame `st` that `sim` just completed.
fn frame_of<'a>(
    st: &'a crate::engine::sim::StepStats,
    sim: &Simulation,
    allocations: Option<u64>,
    worker: bool,
) -> FrameRecord<'a> {
    FrameRecord {
        step: st,
        units: sim.len(),
        result_bytes: sim.result_bytes(),
        allocations,
        worker,
    }
}

/// One frame of `sim` with `settings`, whole, or a piece of a sliced one
/// when `sliced` ([`slicing_for`]): the frame's stats and its allocations
/// (`None` for a frame spread over calls, whose count would include the
/// caller's between them), or `None` while a sliced frame goes on.
fn step_maybe_sliced(
    sim: &mut Simulation,
    settings: &Settings,
    dt: f32,
    sliced: bool,
) -> Option<(crate::engine::sim::StepStats, Option<u64>)> {
    if !sliced {
        let (st, allocations) = step_counted(sim, settings, dt);
        return Some((st, Some(allocations)));
    }
    let before = alloc_count::allocations();
    match sim.step_sliced(dt, settings, slicing_for(settings)) {
        StepProgress::Done(st) => {
            let allocations = (st.slices <= 1).then(|| alloc_count::allocations() - before);
            Some((st, allocations))
        }
        StepProgress::Partial { .. } => None,
    }
}

/// Measures every variant of `plan` on its own new simulation for every
/// visit ([`Fresh::step_plan`]), `dt` seconds per frame, calling
/// `on_outcome` as each outcome becomes final (skipped, or measured in
/// every round). Allocates a simulation per visit.
pub fn run_fresh(plan: &mut Plan, dt: f32, on_outcome: impl FnMut(&Outcome)) {
    run_fresh_watched(plan, dt, on_outcome, |_, _| {});
}

/// [`run_fresh`], also calling `on_visit(fraction done, what)` as each
/// visit begins, `what` naming the variant and the round ("LABEL, round 2
/// of 5"): a progress line per visit.
pub fn run_fresh_watched(
    plan: &mut Plan,
    dt: f32,
    mut on_outcome: impl FnMut(&Outcome),
    mut on_visit: impl FnMut(f64, &str),
) {
    let mut seen = 0;
    let mut fresh = Fresh::default();
    let mut last_visit = None;
    report(plan, &mut seen, &mut on_outcome);
    loop {
        if plan.visit() != last_visit {
            last_visit = plan.visit();
            if let Some(what) = plan_now(plan) {
                on_visit(plan.progress(), &what);
            }
        }
        if !fresh.step_plan(plan, dt) {
            break;
        }
        report(plan, &mut seen, &mut on_outcome);
    }
    report(plan, &mut seen, &mut on_outcome);
}

/// The variant `plan` measures now and its round, for a progress line.
fn plan_now(p: &Plan) -> Option<String> {
    p.recorder()
        .map(|r| format!("{}, round {} of {}", r.label(), p.round() + 1, p.rounds()))
}

/// Measures every variant of `plan` on `sim`, one after another without
/// respawning (units move on between variants, as in the window), `dt`
/// seconds per frame, calling `on_outcome` as each outcome becomes final. A
/// change of the unit count, workload, seed or world between variants
/// respawns (as any step with such settings does).
pub fn run_on(
    sim: &mut Simulation,
    plan: &mut Plan,
    dt: f32,
    mut on_outcome: impl FnMut(&Outcome),
) {
    let mut seen = 0;
    report(plan, &mut seen, &mut on_outcome);
    while let Some(settings) = plan.current().cloned() {
        let (st, allocations) = step_counted(sim, &settings, dt);
        let frame = FrameRecord::headless(&st, sim.len(), sim.result_bytes(), allocations);
        plan.record(frame, || working_set(sim));
        report(plan, &mut seen, &mut on_outcome);
    }
}

/// One measurement of a [`Job`].
// A job holds a handful of tasks: the sweep's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Task {
    /// A plan of variants.
    Plan(Plan),
    /// A cell-size sweep.
    Sweep(CellSweep),
    /// The cache model of a list of settings.
    Model(ModelTask),
}

impl Task {
    /// Fraction done, 0 to 1.
    pub fn progress(&self) -> f64 {
        match self {
            Task::Plan(p) => p.progress(),
            Task::Sweep(s) => f64::from(s.progress()),
            Task::Model(m) => m.progress(),
        }
    }

    /// True when measured to the end (or stopped).
    pub fn is_done(&self) -> bool {
        match self {
            Task::Plan(p) => p.is_done(),
            Task::Sweep(s) => s.is_done(),
            Task::Model(m) => m.is_done(),
        }
    }

    /// Frames it steps in all, about (for the job's progress).
    fn weight(&self) -> f64 {
        match self {
            Task::Plan(p) => (p.variants().len() * p.rounds() * p.spec().steps()) as f64,
            Task::Sweep(s) => (s.planned() * s.rounds() * (1 + s.frames_per_point())) as f64,
            // A model costs about two frames (a spawn and one step).
            Task::Model(m) => (2 * m.len()) as f64,
        }
    }

    /// What is being measured now, for a progress line: the variant's label
    /// and the round ("Grid / SoA, round 2 of 5").
    fn now(&self) -> Option<String> {
        match self {
            Task::Plan(p) => plan_now(p),
            Task::Sweep(s) => s.current().map(|c| {
                format!(
                    "sweep of {}: cell {}, round {} of {}",
                    c.strategy.name(),
                    crate::format::length(c.cell_size),
                    s.round() + 1,
                    s.rounds()
                )
            }),
            Task::Model(m) => m.now(),
        }
    }
}

/// Plans and sweeps measured in order, each visit on a fresh simulation.
pub struct Job {
    tasks: Vec<Task>,
    at: usize,
    fresh: Fresh,
    dt: f32,
    stopped: Option<String>,
}

impl Job {
    /// A job measuring `tasks` in order, `dt` seconds per simulated frame;
    /// `worker` says its frames run on a worker thread (their records say so).
    pub fn new(tasks: Vec<Task>, dt: f32, worker: bool) -> Job {
        let mut job = Job {
            tasks,
            at: 0,
            fresh: Fresh {
                worker,
                ..Fresh::default()
            },
            dt,
            stopped: None,
        };
        job.skip_done();
        job
    }

    /// The same job with long frames spread over its [`Job::step`] calls
    /// ([`Fresh::sliced`]): for the window's own thread, where a whole naive
    /// frame would hold up a refresh.
    pub fn sliced(mut self) -> Job {
        self.fresh.sliced = true;
        self
    }

    fn skip_done(&mut self) {
        while self.tasks.get(self.at).is_some_and(Task::is_done) {
            self.at += 1;
            self.fresh = Fresh {
                worker: self.fresh.worker,
                sliced: self.fresh.sliced,
                ..Fresh::default()
            };
        }
    }

    /// Steps one frame (a piece of one when sliced); false when every task
    /// is done (or the job stopped).
    pub fn step(&mut self) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        let dt = self.dt;
        match self.tasks.get_mut(self.at) {
            Some(Task::Plan(p)) => {
                self.fresh.step_plan(p, dt);
            }
            Some(Task::Sweep(s)) => {
                self.fresh.step_sweep(s, dt);
            }
            Some(Task::Model(m)) => {
                m.step();
            }
            None => return false,
        }
        self.skip_done();
        self.at < self.tasks.len()
    }

    /// Steps to the end.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Ends the job now, saying `why`; the tasks keep what they measured.
    pub fn stop(&mut self, why: impl Into<String>) {
        let why = why.into();
        let from = self.at.min(self.tasks.len());
        for t in &mut self.tasks[from..] {
            match t {
                Task::Plan(p) => p.stop(why.clone()),
                Task::Sweep(s) => s.stop(why.clone()),
                Task::Model(m) => m.stop(why.clone()),
            }
        }
        self.fresh = Fresh::default();
        self.stopped = Some(why);
    }

    /// Why it was stopped, if it was.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// True when every task is done or the job stopped.
    pub fn is_done(&self) -> bool {
        self.stopped.is_some() || self.at >= self.tasks.len()
    }

    /// Fraction done, 0 to 1, weighted by each task's frames.
    pub fn progress(&self) -> f64 {
        if self.is_done() {
            return 1.0;
        }
        let total: f64 = self.tasks.iter().map(Task::weight).sum();
        if total <= 0.0 {
            return 1.0;
        }
        let done: f64 = self.tasks.iter().map(|t| t.weight() * t.progress()).sum();
        (done / total).clamp(0.0, 1.0)
    }

    /// What is being measured now, for a progress line.
    pub fn now(&self) -> Option<String> {
        self.tasks.get(self.at).and_then(Task::now)
    }

    /// The tasks, as measured so far.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The tasks, taking them out of the job.
    pub fn into_tasks(self) -> Vec<Task> {
        self.tasks
    }
}
