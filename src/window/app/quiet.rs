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
use crate::platform::clock::Instant;

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

/// A quiet measurement asked for, waiting for the scene's first picture of
/// the settings on screen before it starts.
pub(super) struct QuietRequest {
    /// What to measure.
    pub tasks: Vec<Task>,
    /// Who asked, and what becomes of the result.
    pub purpose: Purpose,
    /// When it was asked: it starts anyway [`PICTURE_WAIT_S`] after.
    pub asked_at: Instant,
}

/// The quiet measurements: the one running, or the one asked for and
/// waiting for the scene's picture (never both: a request starts only when
/// none runs).
#[derive(Default)]
pub(super) struct QuietHost {
    /// The measurement in progress; the scene waits for it.
    running: Option<Quiet>,
    /// A measurement asked for, waiting for the scene's picture.
    waiting: Option<QuietRequest>,
}

impl QuietHost {
    /// The purpose of the measurement running or waiting, if any.
    pub fn purpose(&self) -> Option<Purpose> {
        self.running
            .as_ref()
            .map(|q| q.purpose)
            .or(self.waiting.as_ref().map(|w| w.purpose))
    }

    /// The purpose of the measurement running (not one waiting), if any.
    pub fn running_purpose(&self) -> Option<Purpose> {
        self.running.as_ref().map(|q| q.purpose)
    }

    /// Whether a measurement runs (the scene then waits: no step, no picture).
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Whether a measurement runs on its own thread (the window then
    /// answers a few times a second, [`IDLE_S`]).
    pub fn threaded(&self) -> bool {
        self.running.as_ref().is_some_and(Quiet::threaded)
    }

    /// Asks for a measurement of `tasks` for `purpose`; it waits for the
    /// scene's picture ([`QuietHost::start_waiting`]). Replaces one waiting.
    pub fn ask(&mut self, tasks: Vec<Task>, purpose: Purpose) {
        self.waiting = Some(QuietRequest {
            tasks,
            purpose,
            asked_at: Instant::now(),
        });
    }

    /// Starts the waiting measurement when `ready` (the scene has a picture
    /// of the settings on screen) or [`PICTURE_WAIT_S`] after it was asked.
    pub fn start_waiting(&mut self, ready: bool) {
        let Some(w) = &self.waiting else {
            return;
        };
        if ready || w.asked_at.elapsed().as_secs_f64() > PICTURE_WAIT_S {
            let QuietRequest { tasks, purpose, .. } = self.waiting.take().expect("checked");
            self.running = Some(Quiet::start(tasks, purpose));
        }
    }

    /// Polls the running measurement; a finished one ends, and its purpose
    /// and job are returned. `None` while it runs or when none runs.
    pub fn poll(&mut self) -> Option<(Purpose, Job)> {
        let q = self.running.as_mut()?;
        let job = q.poll()?;
        let purpose = q.purpose;
        self.running = None;
        Some((purpose, job))
    }

    /// Asks the running measurement to stop and drops a waiting one;
    /// returns whether one was waiting (it never started, so nothing
    /// returns for it).
    pub fn cancel(&mut self) -> bool {
        if let Some(q) = self.running.as_mut() {
            q.cancel();
        }
        self.waiting.take().is_some()
    }

    /// What the overlay shows of the measurement running or waiting: its
    /// progress (0 to 1), what it measures now, and its purpose.
    fn status(&self) -> Option<(f64, String, Purpose)> {
        let waiting = "waiting for the scene's picture".to_string();
        match (&self.running, &self.waiting) {
            (Some(q), _) => Some((q.progress, q.now.clone(), q.purpose)),
            (None, Some(w)) => Some((0.0, waiting, w.purpose)),
            (None, None) => None,
        }
    }
}

impl App {
    /// Why a quiet measurement cannot start now, if it cannot: one runs or
    /// waits, or the cell-size sweep runs. The toast's words.
    pub(super) fn quiet_refusal(&self) -> Option<&'static str> {
        if self.quiet.purpose().is_some() {
            Some("A measurement is running: wait for it or cancel it.")
        } else if self.sweep.is_running() {
            Some("The cell-size sweep is running: measure when it is done.")
        } else {
            None
        }
    }

    /// Starts a quiet measurement of `tasks` for `purpose`, unless one runs
    /// or the sweep does (then says so and returns false).
    pub(super) fn start_quiet(&mut self, tasks: Vec<Task>, purpose: Purpose) -> bool {
        if let Some(why) = self.quiet_refusal() {
            self.toast(why.to_string());
            return false;
        }
        // The scene first shows a picture of what is measured, so the
        // dimmed one on screen while it waits is of these settings.
        self.quiet.ask(tasks, purpose);
        self.refresh_quiet();
        true
    }

    /// Polls the quiet measurement; hands a finished one to whoever asked.
    /// A waiting one starts once the scene has a picture of the settings
    /// on screen (or after [`PICTURE_WAIT_S`]).
    pub(super) fn poll_quiet(&mut self) {
        let ready = self.stats.is_current(&self.settings)
            && self.stats.picture.instances > 0
            && self.picture.scene.is_idle()
            && self.stepping.worker.is_none()
            && self.picture.pacing.packing.is_none();
        self.quiet.start_waiting(ready);
        if !self.quiet.is_running() {
            if self.quiet.purpose().is_some() {
                self.refresh_quiet();
            }
            return;
        }
        if let Some((purpose, job)) = self.quiet.poll() {
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
            self.stepping.since_step = 0.0;
            self.refresh_headline();
        }
        self.refresh_quiet();
    }

    /// Cancels the quiet measurement, if one runs or waits.
    pub(super) fn cancel_quiet(&mut self) {
        if self.quiet.cancel() {
            self.toast("Measurement cancelled; its numbers stay pending.".to_string());
            self.refresh_quiet();
        }
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
        let row = self.compare.measured(s).map(|m| of(m, "compare panel"));
        let step = self.lessons.measured(s).map(|m| of(&m, "lesson"));
        self.stats.measured_now = row.or(step);
    }

    /// The overlay's view of the quiet measurement.
    pub(super) fn refresh_quiet(&mut self) {
        let status = self.quiet.status();
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
