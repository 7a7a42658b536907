//! Quiet measuring: a lesson's or the compare panel's measurement runs on
//! fresh simulations ([`Job`], the engine's own, as `lesson` and `bench`
//! run headless) while the scene waits: its simulation does not step, the
//! last picture stays on screen dimmed and is not drawn again, and the
//! window refreshes a few times a second, so the software rasterizer does
//! not compete with the measurement for the machine's cores.
//!
//! Where threads can be started the job runs on its own thread and the
//! window polls it; in the browser (no threads) the window steps it for a
//! slice of each refresh.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::{worker, App};
use crate::measure::run::{Job, Task};

/// Seconds per simulated frame of a quiet measurement (the bench's).
const DT: f32 = crate::measure::BENCH_DT;
/// Seconds of measuring per refresh where the job runs in the window's
/// thread (the browser): at least one frame each refresh.
const HERE_SLICE_S: f64 = 0.1;
/// Pause per refresh while a job runs on its thread, seconds: the window
/// answers a few times a second and leaves the cores to the measurement.
pub(super) const IDLE_S: f64 = 0.08;
/// Longest wait for the scene's first picture of the settings on screen
/// before a measurement starts anyway, seconds.
const PICTURE_WAIT_S: f64 = 10.0;

/// Who asked for a quiet measurement, and what becomes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// The lesson being followed: every step, interleaved.
    Lesson,
    /// The compare panel's "measure": the current settings, a new row.
    CompareOne,
    /// The compare panel's "measure all": every row again, interleaved.
    CompareAll,
    /// The overlay's working-set sweep: a curve in the compare panel.
    WorkingSet,
}

/// What the job's thread reports to the window.
#[derive(Default)]
struct Report {
    progress: f64,
    now: Option<String>,
}

/// Where the job runs.
enum Runner {
    /// On its own thread, which returns the job when it is done.
    Thread {
        handle: std::thread::JoinHandle<Job>,
        report: Arc<Mutex<Report>>,
        cancel: Arc<AtomicBool>,
    },
    /// In the window's thread, a slice per refresh.
    Here(Box<Job>),
}

/// A quiet measurement in progress.
pub(super) struct Quiet {
    pub(super) purpose: Purpose,
    runner: Runner,
    /// Progress (0 to 1) and what is measured now, as last reported.
    pub(super) progress: f64,
    pub(super) now: String,
}

impl Quiet {
    /// Starts measuring `tasks` for `purpose`: on a thread where there are
    /// threads, else in this one.
    pub(super) fn start(tasks: Vec<Task>, purpose: Purpose) -> Quiet {
        let runner = if worker::THREADS {
            let backup = tasks.clone();
            let report = Arc::new(Mutex::new(Report::default()));
            let cancel = Arc::new(AtomicBool::new(false));
            let (r, c) = (Arc::clone(&report), Arc::clone(&cancel));
            let handle = std::thread::Builder::new()
                .name("quiet measurement".into())
                .spawn(move || {
                    let mut job = Job::new(tasks, DT, true);
                    while job.step() {
                        if c.load(Ordering::Relaxed) {
                            job.stop("cancelled");
                            break;
                        }
                        if let Ok(mut r) = r.lock() {
                            r.progress = job.progress();
                            r.now = job.now();
                        }
                    }
                    job
                });
            match handle {
                Ok(handle) => Runner::Thread {
                    handle,
                    report,
                    cancel,
                },
                // No thread could be started: measure here instead.
                Err(_) => Runner::Here(Box::new(Job::new(backup, DT, false).sliced())),
            }
        } else {
            Runner::Here(Box::new(Job::new(tasks, DT, false).sliced()))
        };
        Quiet {
            purpose,
            runner,
            progress: 0.0,
            now: String::new(),
        }
    }

    /// Advances or polls the job; returns it when it is done.
    pub(super) fn poll(&mut self) -> Option<Job> {
        match &mut self.runner {
            Runner::Thread { handle, report, .. } => {
                if let Ok(r) = report.lock() {
                    self.progress = r.progress;
                    if let Some(now) = &r.now {
                        self.now.clone_from(now);
                    }
                }
                if !handle.is_finished() {
                    return None;
                }
                let Runner::Thread { handle, .. } = std::mem::replace(
                    &mut self.runner,
                    Runner::Here(Box::new(Job::new(Vec::new(), DT, false))),
                ) else {
                    unreachable!("matched above")
                };
                // A panic on the job's thread ends the job with nothing measured.
                handle.join().ok()
            }
            Runner::Here(job) => {
                let t = crate::platform::clock::Instant::now();
                while job.step() && t.elapsed().as_secs_f64() < HERE_SLICE_S {}
                self.progress = job.progress();
                if let Some(now) = job.now() {
                    self.now = now;
                }
                job.is_done()
                    .then(|| std::mem::replace(job.as_mut(), Job::new(Vec::new(), DT, false)))
            }
        }
    }

    /// Asks the job to stop; [`Quiet::poll`] returns it (stopped) soon after.
    pub(super) fn cancel(&mut self) {
        match &mut self.runner {
            Runner::Thread { cancel, .. } => cancel.store(true, Ordering::Relaxed),
            Runner::Here(job) => job.stop("cancelled"),
        }
    }

    /// True when the job runs on its own thread.
    pub(super) fn threaded(&self) -> bool {
        matches!(self.runner, Runner::Thread { .. })
    }
}

impl App {
    /// Starts a quiet measurement of `tasks` for `purpose`, unless one runs
    /// (then says so and returns false).
    pub(super) fn start_quiet(&mut self, tasks: Vec<Task>, purpose: Purpose) -> bool {
        if self.quiet.is_some() || self.quiet_waiting.is_some() {
            self.toast("A measurement is running: wait for it or cancel it.".to_string());
            return false;
        }
        if self.sweep.run.as_ref().is_some_and(|sw| !sw.is_done()) {
            self.toast("The cell-size sweep is running: measure when it is done.".to_string());
            return false;
        }
        // The scene first shows a picture of what is measured, so the
        // dimmed one on screen while it waits is of these settings.
        self.quiet_waiting = Some((tasks, purpose, crate::platform::clock::Instant::now()));
        self.refresh_quiet();
        true
    }

    /// Starts the waiting measurement once the scene has a picture of the
    /// settings on screen (or after [`PICTURE_WAIT_S`]).
    fn start_waiting_quiet(&mut self) {
        let ready = self.stats.is_current(&self.settings)
            && self.stats.picture.instances > 0
            && self.scene.is_idle()
            && self.worker.is_none()
            && self.pacing.packing.is_none();
        let Some((_, _, since)) = &self.quiet_waiting else {
            return;
        };
        if ready || since.elapsed().as_secs_f64() > PICTURE_WAIT_S {
            let (tasks, purpose, _) = self.quiet_waiting.take().expect("checked");
            self.quiet = Some(Quiet::start(tasks, purpose));
        }
    }

    /// Polls the quiet measurement; hands a finished one to whoever asked.
    pub(super) fn poll_quiet(&mut self) {
        self.start_waiting_quiet();
        let Some(q) = self.quiet.as_mut() else {
            if self.quiet_waiting.is_some() {
                self.refresh_quiet();
            }
            return;
        };
        let done = q.poll();
        let purpose = q.purpose;
        if let Some(job) = done {
            self.quiet = None;
            let stopped = job.stopped().map(str::to_string);
            let tasks = job.into_tasks();
            match purpose {
                Purpose::Lesson => self.finish_lesson_measure(&tasks, stopped),
                Purpose::CompareOne | Purpose::CompareAll => {
                    self.finish_compare_measure(&tasks, purpose, stopped);
                }
                Purpose::WorkingSet => self.finish_ws_sweep(&tasks, stopped),
            }
            // The scene starts again from here: the time spent waiting is
            // not simulated.
            self.since_step = 0.0;
            self.refresh_headline();
        }
        self.refresh_quiet();
    }

    /// Cancels the quiet measurement, if one runs or waits.
    pub(super) fn cancel_quiet(&mut self) {
        if let Some(q) = self.quiet.as_mut() {
            q.cancel();
        }
        if self.quiet_waiting.take().is_some() {
            self.toast("Measurement cancelled; its numbers stay pending.".to_string());
            self.refresh_quiet();
        }
    }

    /// The purpose of the quiet measurement running or waiting, if any.
    pub(super) fn quiet_purpose(&self) -> Option<Purpose> {
        self.quiet
            .as_ref()
            .map(|q| q.purpose)
            .or(self.quiet_waiting.as_ref().map(|w| w.1))
    }

    /// The headline's measurement: the newest quiet one of exactly the work
    /// on screen ([`crate::engine::sim::Settings::same_work`]), from the compare
    /// panel's rows or the lesson's steps.
    pub(super) fn refresh_headline(&mut self) {
        let s = &self.settings;
        let of = |m: &crate::measure::Measurement, source: &'static str| {
            crate::window::ui::stats::MeasuredNow {
                median_ms: m.ms.total.median,
                range_ms: (m.ms.total.min, m.ms.total.max),
                rounds: m.rounds.len(),
                frames: m.frames,
                source,
            }
        };
        let row = self
            .compare
            .rows
            .rows()
            .iter()
            .rev()
            .find(|m| m.settings.same_work(s))
            .map(|m| of(m, "compare panel"));
        let step = self.lessons.session.as_ref().and_then(|l| {
            let run = l.run();
            (0..run.len())
                .filter_map(|k| {
                    run.result(k)
                        .and_then(crate::teaching::lesson::StepResult::outcome)
                })
                .filter_map(|o| o.measured().cloned())
                .find(|m| m.settings.same_work(s))
                .map(|m| of(&m, "lesson"))
        });
        self.stats.measured_now = row.or(step);
    }

    /// The overlay's view of the quiet measurement.
    pub(super) fn refresh_quiet(&mut self) {
        let waiting = "waiting for the scene's picture".to_string();
        let status = match (&self.quiet, &self.quiet_waiting) {
            (Some(q), _) => Some((q.progress, q.now.clone(), q.purpose)),
            (None, Some(w)) => Some((0.0, waiting, w.1)),
            (None, None) => None,
        };
        self.stats.quiet =
            status
                .as_ref()
                .map(|(p, what, purpose)| crate::window::ui::stats::QuietStatus {
                    progress: *p,
                    what: what.clone(),
                    lesson: *purpose == Purpose::Lesson,
                });
        self.stats.measuring = match status {
            Some((p, what, purpose)) if purpose != Purpose::Lesson => Some((what, p)),
            _ => None,
        };
        self.refresh_lesson();
    }
}
