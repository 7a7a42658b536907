//! A lesson run headless (`spatial-query-lab lesson`, the tests): the row
//! steps measured together in interleaved rounds, each visit on a fresh
//! simulation, then each sweep step's sweep, through the measurement
//! engine's [`Job`] (the window runs the same job on a worker thread).

use super::LessonRun;
use crate::measure::run::Job;

/// Seconds per simulated frame of a headless run.
pub const DT: f32 = 1.0 / 60.0;

/// Measures every step of `run` headless ([`LessonRun::tasks`]) and keeps
/// the results, calling `progress(fraction done, what is measured now)`
/// every frame. Allocates a simulation per visit.
pub fn measure_all(run: &mut LessonRun, mut progress: impl FnMut(f64, Option<String>)) {
    let mut job = Job::new(run.tasks(), DT, false);
    while job.step() {
        progress(job.progress(), job.now());
    }
    run.record_tasks(&job.into_tasks());
}

/// Measures every step of `run` ([`measure_all`]), then calls `on_step(k,
/// run)` for each step in order (to print its text with its numbers).
pub fn run_all(run: &mut LessonRun, mut on_step: impl FnMut(usize, &LessonRun)) {
    measure_all(run, |_, _| {});
    for k in 0..run.len() {
        on_step(k, run);
    }
}
