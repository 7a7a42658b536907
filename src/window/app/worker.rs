//! The worker thread that takes the simulation for work that cannot be
//! split over refreshes (spawning or re-storing many units, long step
//! calls), while the window keeps answering.
//!
//! Where threads cannot be started (the browser: wasm32 has none) the same
//! job runs in the window's thread instead, one refresh after the overlay
//! said what it is about to do: that refresh is long, but nothing is
//! started over and every later one answers. Long step calls need no
//! worker there: the sliced step already spreads a frame over refreshes.

use crate::platform::clock::Instant;

use macroquad::prelude::get_time;

use super::{App, STATUS_S};
use crate::engine::sim::{Settings, Simulation, StepProgress};
use crate::format::thousands;

/// Whether this platform can start threads: not the browser's wasm32.
pub(super) const THREADS: bool = !cfg!(target_family = "wasm");

/// What a worker's job returns: a step call's progress and seconds, or
/// `None` for a spawn.
type JobResult = Option<(StepProgress, f64)>;

/// Where a worker's job runs.
enum Runner {
    /// On a thread that has the simulation: it sends the simulation back
    /// when its job is done.
    Thread {
        handle: std::thread::JoinHandle<JobResult>,
        sim: std::sync::mpsc::Receiver<Simulation>,
    },
    /// In the window's thread at the next poll (no threads here); the
    /// simulation stays in place.
    Here(Box<dyn FnOnce(&mut Simulation) -> JobResult>),
}

/// A job that has, or will soon take, the simulation: on a thread, or in
/// this one where there are no threads.
pub(super) struct Worker {
    runner: Runner,
    pub(super) since: Instant,
    pub(super) what: String,
    /// The context of a step call, `None` for spawning.
    pub(super) step: Option<StepContext>,
}

/// What [`App::after_step`] needs from before a step call.
#[derive(Clone, Debug)]
pub(super) struct StepContext {
    /// The user's settings when the call began: the numbers it returns are
    /// for these ([`crate::window::ui::stats::FrameStats::measured`]).
    pub(super) settings: Settings,
    /// The units were spawned anew for this step.
    pub(super) respawned: bool,
    /// The cell size the sweep measures, if it runs.
    pub(super) sweep_cell: Option<f32>,
    /// The allocation count before the call, when it ran in this thread.
    pub(super) allocs: Option<u64>,
}

/// A simulation of `settings` without units, on one thread (no pool is
/// built for it): the stand-in while a worker has the real one, and the
/// window's first one when the units are spawned on a worker.
pub(super) fn empty_simulation(settings: &Settings) -> Simulation {
    Simulation::new(&Settings {
        units: 0,
        threads: 1,
        ..settings.clone()
    })
}

impl App {
    /// An empty simulation that stands in while a worker thread has the
    /// real one (one thread: no pool is built for it).
    pub(super) fn stand_in(&self) -> Simulation {
        empty_simulation(&self.settings)
    }

    /// Hands the simulation to a worker thread that runs `job` on it; the
    /// window keeps showing the last picture and answering until
    /// [`App::step`] takes the simulation back. `what` is shown in the
    /// overlay while it works; `step` is the context of a step call.
    pub(super) fn start_worker(
        &mut self,
        what: String,
        step: Option<StepContext>,
        job: impl FnOnce(&mut Simulation) -> Option<(StepProgress, f64)> + Send + 'static,
    ) {
        if !THREADS {
            self.stats.preparing = Some(format!(
                "{what} in the window's thread (the browser has no threads): the picture pauses for a moment"
            ));
            self.stepping.worker = Some(Worker {
                runner: Runner::Here(Box::new(job)),
                since: Instant::now(),
                what,
                step,
            });
            return;
        }
        let stand_in = self.stand_in();
        let mut sim = std::mem::replace(&mut self.sim, stand_in);
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("simulation".to_string())
            .spawn(move || {
                let result = job(&mut sim);
                let _ = tx.send(sim);
                result
            });
        match spawned {
            Ok(handle) => {
                self.stepping.worker = Some(Worker {
                    runner: Runner::Thread { handle, sim: rx },
                    since: Instant::now(),
                    what,
                    step,
                });
            }
            Err(e) => {
                // No thread: start over in this one, once.
                self.stats.status = Some((
                    format!(
                        "could not start a worker thread ({e}); respawned in the window's thread"
                    ),
                    get_time() + STATUS_S,
                ));
                self.sim = Simulation::new(&self.settings);
            }
        }
    }

    /// Spawns or re-stores the units on a worker thread (`respawn`: anew
    /// even with the same settings); spawning a million units takes about
    /// 35 ms as SoA and up to a second through AoS pointers.
    pub(super) fn start_preparing(&mut self, respawn: bool) {
        let s = self.settings.clone();
        let what = format!(
            "preparing {} units ({} layout)",
            thousands(s.units as u64),
            s.layout.name()
        );
        self.start_worker(what, None, move |sim| {
            if respawn {
                sim.respawn(&s);
            } else {
                sim.prepare(&s);
            }
            None
        });
    }

    /// The worker's result once it finished: the simulation is back, and
    /// `Some` carries a step call's progress with its context. `None` while
    /// it works (the overlay then says what it does and for how long).
    /// `Err(())` when no worker runs, or when its job was a spawn (or it
    /// failed): nothing to wait for, the caller steps.
    pub(super) fn poll_worker(&mut self) -> Result<Option<(StepProgress, StepContext)>, ()> {
        let Some(w) = self.stepping.worker.take() else {
            return Err(());
        };
        let outcome = match w.runner {
            Runner::Thread { handle, sim } if handle.is_finished() => {
                let result = handle.join();
                match (sim.try_recv(), result) {
                    (Ok(sim), Ok(result)) => {
                        self.sim = sim;
                        Ok(result)
                    }
                    _ => Err(()),
                }
            }
            Runner::Here(job) => {
                // The overlay said what this refresh does (`start_worker`).
                Ok(job(&mut self.sim))
            }
            runner @ Runner::Thread { .. } => {
                let secs = w.since.elapsed().as_secs_f64();
                // A step call is shown only when it is slow enough to notice.
                if w.step.is_none() || secs > 0.25 {
                    self.stats.preparing =
                        Some(format!("{} on a worker thread: {secs:.1} s", w.what));
                }
                self.stepping.worker = Some(Worker { runner, ..w });
                return Ok(None);
            }
        };
        self.stats.preparing = None;
        match outcome {
            Ok(result) => match (result, w.step) {
                (Some((progress, call_s)), Some(ctx)) => {
                    self.stepping.last_call_s = call_s;
                    Ok(Some((progress, ctx)))
                }
                _ => {
                    self.picture.pacing.needs_picture = true;
                    if self.sim.world != self.stepping.world {
                        self.stepping.world = self.sim.world;
                        self.frame_world();
                    }
                    if let Some(id) = self.picking.select_at_start.take() {
                        self.select_start(id);
                    }
                    Err(())
                }
            },
            Err(()) => {
                self.stats.status = Some((
                    format!("the worker thread failed ({}); respawned the units", w.what),
                    get_time() + STATUS_S,
                ));
                self.sim = Simulation::new(&self.settings);
                self.picture.pacing.needs_picture = true;
                Err(())
            }
        }
    }
}
