//! One step call per refresh (a whole frame, or a piece of a sliced one)
//! and what follows it: the selection, the overlay's numbers, the sweep, the
//! memory view. [`Stepping`] owns the step calls' bookkeeping: what the
//! simulation holds, when it steps next, how many queries one call runs.

use crate::platform::clock::Instant;

use glam::Vec3;
use macroquad::prelude::{get_time, screen_height, screen_width};

use super::memory_panel::MemoryContext;
use super::worker::{self, StepContext, Worker};
use super::{App, STATUS_S, WORKER_UNITS};
use crate::engine::sim::{Settings, Slicing, SpawnKey, StepProgress};
use crate::engine::spatial::Strategy;
use crate::format::thousands;
use crate::measure::memory;
use crate::measure::FrameRecord;
use crate::platform::alloc_count;
use crate::window::ui::stats::ChurnMeter;
use crate::window::ui::sweep::SweepAction;

/// A step call longer than this (seconds) at [`WORKER_UNITS`] or more
/// makes the next call run on a worker thread, so that pieces that cannot
/// be split (reordering a million AoS objects takes about 300 ms) never
/// hold up a refresh.
const WORKER_CALL_S: f64 = 0.06;
/// Longest simulated step, seconds of real time (slower pictures slow the simulation down).
const MAX_STEP_S: f32 = 0.1;

/// The step calls' bookkeeping: what the simulation holds, when it steps
/// next, how many queries one call runs, and the worker thread that has
/// the simulation while a long job runs.
pub(super) struct Stepping {
    /// The world edge the camera was last framed for, world units: a spawn
    /// or step that changes it frames the world again.
    pub world: f32,
    /// Unit count, workload and seed of the units the simulation holds.
    pub spawned: SpawnKey,
    /// Respawn at the next step (R or the overlay's button).
    pub respawn: bool,
    /// Real time since the last step, seconds.
    pub since_step: f32,
    /// Queries per step call ([`crate::engine::sim::Simulation::step_sliced`]);
    /// `usize::MAX`: the whole frame in one call.
    pub query_slice: usize,
    /// Seconds of the last step call.
    pub last_call_s: f64,
    /// The worker thread that has the simulation, if one has it
    /// ([`App::start_worker`]).
    pub worker: Option<Worker>,
    /// Deaths and spawns per second of the `battle` workload.
    pub churn: ChurnMeter,
}

impl Stepping {
    /// Nothing stepped yet: the simulation holds the units of `spawned` in
    /// a world of edge `world` (world units).
    pub fn new(spawned: SpawnKey, world: f32) -> Self {
        Stepping {
            world,
            spawned,
            respawn: false,
            since_step: 0.0,
            query_slice: usize::MAX,
            last_call_s: 0.0,
            worker: None,
            churn: ChurnMeter::default(),
        }
    }

    /// Sets the queries per call to what the last call's rate (`queries`
    /// queries in `slice_s` seconds) fits in `target_s` seconds, moving by
    /// at most 4x per call, so the slices track this machine, layout and
    /// unit count rather than the cost model's small sample. A Naive or
    /// Grid frame (`strategy`) stepped whole whose queries took longer than
    /// the target starts the slicing; slices that grow past the unit count
    /// (`units`) end it, except for Naive.
    pub fn adapt_slice(
        &mut self,
        slice_s: f64,
        queries: usize,
        target_s: f64,
        strategy: Strategy,
        units: usize,
    ) {
        if slice_s.is_nan() || slice_s <= 0.0 || queries == 0 {
            return;
        }
        let target = target_s;
        let sliceable = matches!(strategy, Strategy::Naive | Strategy::Grid);
        if self.query_slice == usize::MAX {
            if sliceable && slice_s > target {
                self.query_slice = ((queries as f64 * target / slice_s) as usize).max(1);
            }
            return;
        }
        // The rate of this call, within 4x of the current size per call.
        let cur = self.query_slice as f64;
        let next = (queries as f64 * target / slice_s).clamp(cur * 0.25, cur * 4.0) as usize;
        self.query_slice = if next >= queries.max(units) && strategy != Strategy::Naive {
            usize::MAX
        } else {
            next.max(1)
        };
    }
}

impl App {
    /// One simulation step, or one piece of a frame spread over refreshes;
    /// returns whether a frame was completed (so a new picture may begin).
    /// A step call that took longer than [`WORKER_CALL_S`] at many units
    /// makes the next ones run on a worker thread (checked again after
    /// each). The camera follows the selected unit.
    pub(super) fn step(&mut self) -> bool {
        let polled = self.poll_worker();
        // A click made while the worker had the simulation.
        self.pick_clicked();
        match polled {
            Ok(None) => return false,
            Ok(Some((progress, ctx))) => return self.after_step(progress, ctx),
            Err(()) => {}
        }
        let allocs = alloc_count::allocations();
        // Respawn here, not when asked: until this step the index still
        // describes the units on screen, which picking reads. Stable ids
        // restart with a new spawn, so the selection goes with it.
        let s = &self.settings;
        let spawn = s.spawn_key();
        let asked = std::mem::take(&mut self.stepping.respawn);
        if asked || spawn != self.stepping.spawned {
            self.picking.selection.clear();
        }
        if (asked || self.sim.needs_prepare(s)) && s.units >= WORKER_UNITS {
            self.start_preparing(asked);
            return false;
        }
        if asked {
            self.sim.respawn(s);
        }
        let respawned = spawn != self.stepping.spawned;
        self.picture.pacing.needs_picture |= asked;
        self.stepping.spawned = spawn;
        let dt = std::mem::take(&mut self.stepping.since_step).min(MAX_STEP_S);
        let sweep_cell = self.sweep.cell_size();
        let slicing = Slicing {
            queries: self.stepping.query_slice,
            seconds: self.guards.budget.slice_s,
        };
        // The sweep's cell size on a copy: the user's setting stays.
        let settings = Settings {
            cell_size: sweep_cell.unwrap_or(self.settings.cell_size),
            ..self.settings.clone()
        };
        let ctx = StepContext {
            settings: self.settings.clone(),
            respawned,
            sweep_cell,
            allocs: Some(allocs),
        };
        // Without threads (the browser) the sliced step below is the
        // answer: it spreads a long frame over refreshes in this thread.
        if worker::THREADS
            && self.stepping.last_call_s > WORKER_CALL_S
            && self.settings.units >= WORKER_UNITS
        {
            let what = format!("step of {} units", thousands(self.settings.units as u64));
            let ctx = StepContext {
                allocs: None,
                ..ctx
            };
            self.start_worker(what, Some(ctx), move |sim| {
                let t = Instant::now();
                let progress = sim.step_sliced(dt, &settings, slicing);
                Some((progress, t.elapsed().as_secs_f64()))
            });
            return false;
        }
        let t = Instant::now();
        let progress = self.sim.step_sliced(dt, &settings, slicing);
        self.stepping.last_call_s = t.elapsed().as_secs_f64();
        self.after_step(progress, ctx)
    }

    /// Finds the selected unit again after units moved in memory (a step,
    /// or a piece of one that reordered them), says so when it died, and
    /// moves a following camera to it. Returns its storage index.
    pub(super) fn resolve_selection(&mut self) -> Option<usize> {
        let sim = &self.sim;
        let selection = &mut self.picking.selection;
        let resolved = selection.resolve(sim.handles(), |h| sim.resolve(h));
        if let Some(h) = selection.take_lost() {
            self.stats.status = Some((
                format!(
                    "The selected unit (#{}, generation {}) died; selection cleared.",
                    h.slot, h.generation
                ),
                get_time() + STATUS_S,
            ));
        }
        if let (Some(i), true) = (resolved, self.picking.selection.follows()) {
            let (x, z) = self.sim.store().pos(i);
            let region = self.free_region();
            let window = glam::Vec2::new(screen_width(), screen_height());
            self.camera
                .center_in_region(Vec3::new(x, 0.0, z), window, region);
        }
        resolved
    }

    /// Records a step call's `progress` for the overlay, the sweep, the
    /// churn meter and the selection; returns whether a frame was completed.
    pub(super) fn after_step(&mut self, progress: StepProgress, ctx: StepContext) -> bool {
        let StepContext {
            settings,
            respawned,
            sweep_cell,
            allocs,
        } = ctx;
        self.picture.pacing.needs_picture |= respawned;
        self.note_threads();
        self.stats.units = self.sim.len();
        self.stats.world = self.sim.world;
        if self.sim.world != self.stepping.world {
            self.stepping.world = self.sim.world;
            self.frame_world();
        }
        self.stats.step = match progress {
            StepProgress::Done(st) => {
                self.stats.slice_progress = None;
                self.stats.measured = Some(settings.clone());
                if st.slices <= 1 {
                    self.adapt_slice(st.query_s, self.sim.len());
                }
                st
            }
            StepProgress::Partial { done, of, slice_s } => {
                // A piece of a sliced frame: the picture of the last
                // complete frame stays on screen.
                let before = self.stats.slice_progress.map_or(0, |p| p.0);
                self.stats.slice_progress = Some((done, of));
                if done > before {
                    self.adapt_slice(slice_s, done - before);
                }
                // A piece may have reordered the units.
                self.resolve_selection();
                return false;
            }
        };
        // Counted only when the step ran in this thread: the counter is
        // process-wide, and the window allocates while a worker steps.
        self.stats.step_allocations = allocs.map(|a| alloc_count::allocations() - a);
        self.stats.result_bytes = self.sim.result_bytes();
        let step = self.stats.step;
        let frame = FrameRecord {
            step: &step,
            units: self.sim.len(),
            result_bytes: self.stats.result_bytes,
            allocations: self.stats.step_allocations,
            worker: allocs.is_none(),
        };
        if sweep_cell.is_some() && self.sweep.record(frame, || memory::working_set(&self.sim)) {
            self.stats.sweep.clone_from(&self.sweep.run);
        }
        self.keep_sweep();
        if std::mem::take(&mut self.sweep.at_launch) {
            self.sweep_action(SweepAction::Start);
        }
        let now = get_time();
        let churn = &mut self.stepping.churn;
        if respawned {
            churn.clear();
        }
        churn.record(now, self.stats.step.deaths, self.stats.step.spawns);
        self.stats.churn_per_s = churn.rates();
        (self.stats.llc_event, self.stats.counters_unavailable) = match self.sim.cache_counters() {
            Ok(e) => (e, None),
            Err(why) => ("", Some(why.to_string())),
        };
        let resolved = self.resolve_selection();
        self.stats.memory = self.view.show_memory.then(|| {
            let cx = MemoryContext {
                sim: &self.sim,
                settings: &self.settings,
                geometry: self.view.settings.cache_model,
                frame: self.clock.frame,
            };
            self.memory.view(&cx, resolved)
        });
        true
    }

    /// [`Stepping::adapt_slice`] to the slice budget, the strategy and the
    /// unit count running now.
    pub(super) fn adapt_slice(&mut self, slice_s: f64, queries: usize) {
        let (target, strategy) = (self.guards.budget.slice_s, self.settings.strategy);
        let units = self.sim.len();
        self.stepping
            .adapt_slice(slice_s, queries, target, strategy, units);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stepping() -> Stepping {
        Stepping::new(crate::engine::sim::Settings::default().spawn_key(), 100.0)
    }

    #[test]
    fn a_whole_frame_over_the_target_starts_slicing_and_slices_track_the_rate() {
        let mut s = stepping();
        // Within the target: the frame stays whole.
        s.adapt_slice(0.01, 10_000, 0.05, Strategy::Grid, 10_000);
        assert_eq!(s.query_slice, usize::MAX);
        // Twice the target: half the queries per call.
        s.adapt_slice(0.1, 10_000, 0.05, Strategy::Grid, 10_000);
        assert_eq!(s.query_slice, 5_000);
        // Much faster: at most 4x more per call.
        s.adapt_slice(0.001, 5_000, 0.05, Strategy::Grid, 1_000_000);
        assert_eq!(s.query_slice, 20_000);
        // Past the unit count a grid frame is whole again; Naive stays sliced.
        s.adapt_slice(0.001, 20_000, 0.05, Strategy::Grid, 10_000);
        assert_eq!(s.query_slice, usize::MAX);
        s.query_slice = 20_000;
        s.adapt_slice(0.001, 20_000, 0.05, Strategy::Naive, 10_000);
        assert_eq!(s.query_slice, 80_000);
        // A SortedGrid frame is never sliced; nothing measured changes nothing.
        let mut t = stepping();
        t.adapt_slice(1.0, 10_000, 0.05, Strategy::SortedGrid, 10_000);
        t.adapt_slice(0.0, 10_000, 0.05, Strategy::Grid, 10_000);
        t.adapt_slice(f64::NAN, 10_000, 0.05, Strategy::Grid, 10_000);
        assert_eq!(t.query_slice, usize::MAX);
    }
}
