//! One step call per refresh (a whole frame, or a piece of a sliced one)
//! and what follows it: the selection, the overlay's numbers, the sweep, the
//! memory view.

use crate::platform::clock::Instant;

use glam::Vec3;
use macroquad::prelude::{get_time, screen_height, screen_width};

use super::{worker, App, StepContext, STATUS_S, WORKER_UNITS};
use crate::engine::sim::{Settings, Slicing, StepProgress};
use crate::engine::spatial::Strategy;
use crate::format::thousands;
use crate::measure::memory;
use crate::measure::sweep::CellSweep;
use crate::measure::FrameRecord;
use crate::platform::alloc_count;
use crate::window::ui::memory_view::{self, MemoryView};
use crate::window::ui::sweep::SweepAction;

/// A step call longer than this (seconds) at [`WORKER_UNITS`] or more
/// makes the next call run on a worker thread, so that pieces that cannot
/// be split (reordering a million AoS objects takes about 300 ms) never
/// hold up a refresh.
const WORKER_CALL_S: f64 = 0.06;
/// Longest simulated step, seconds of real time (slower pictures slow the simulation down).
const MAX_STEP_S: f32 = 0.1;

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
        let asked = std::mem::take(&mut self.respawn);
        if asked || spawn != self.spawned {
            self.selection.clear();
        }
        if (asked || self.sim.needs_prepare(s)) && s.units >= WORKER_UNITS {
            self.start_preparing(asked);
            return false;
        }
        if asked {
            self.sim.respawn(s);
        }
        let respawned = spawn != self.spawned;
        self.pacing.needs_picture |= asked;
        self.spawned = spawn;
        let dt = std::mem::take(&mut self.since_step).min(MAX_STEP_S);
        let sweep_cell = self.sweep.run.as_ref().and_then(CellSweep::cell_size);
        let slicing = Slicing {
            queries: self.query_slice,
            seconds: self.budget.slice_s,
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
            && self.last_call_s > WORKER_CALL_S
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
        self.last_call_s = t.elapsed().as_secs_f64();
        self.after_step(progress, ctx)
    }

    /// Finds the selected unit again after units moved in memory (a step,
    /// or a piece of one that reordered them), says so when it died, and
    /// moves a following camera to it. Returns its storage index.
    pub(super) fn resolve_selection(&mut self) -> Option<usize> {
        let sim = &self.sim;
        let resolved = self.selection.resolve(sim.handles(), |h| sim.resolve(h));
        if let Some(h) = self.selection.take_lost() {
            self.stats.status = Some((
                format!(
                    "The selected unit (#{}, generation {}) died; selection cleared.",
                    h.slot, h.generation
                ),
                get_time() + STATUS_S,
            ));
        }
        if let (Some(i), true) = (resolved, self.selection.follows()) {
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
        self.pacing.needs_picture |= respawned;
        self.note_threads();
        self.stats.units = self.sim.len();
        self.stats.world = self.sim.world;
        if self.sim.world != self.world {
            self.world = self.sim.world;
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
        if let (Some(sw), Some(_)) = (self.sweep.run.as_mut(), sweep_cell) {
            sw.record(frame, || memory::working_set(&self.sim));
            self.stats.sweep.clone_from(&self.sweep.run);
        }
        self.keep_sweep();
        if std::mem::take(&mut self.sweep.at_launch) {
            self.sweep_action(SweepAction::Start);
        }
        let now = get_time();
        if respawned {
            self.churn.clear();
        }
        self.churn
            .record(now, self.stats.step.deaths, self.stats.step.spawns);
        self.stats.churn_per_s = self.churn.rates();
        (self.stats.llc_event, self.stats.counters_unavailable) = match self.sim.cache_counters() {
            Ok(e) => (e, None),
            Err(why) => ("", Some(why.to_string())),
        };
        let resolved = self.resolve_selection();
        self.stats.memory = self.view.show_memory.then(|| self.memory_view(resolved));
        true
    }

    /// The memory view of the last step: the query of the selected unit (or
    /// of a unit in the middle of storage), and the mean over sampled queries.
    pub(super) fn memory_view(&mut self, selected: Option<usize>) -> MemoryView {
        let sim = &self.sim;
        let r = self.settings.radius;
        let n = sim.len();
        let Some(i) = selected.or((n > 0).then_some(n / 2)) else {
            return MemoryView::default();
        };
        memory::trace_query(sim, i, r, &mut self.trace);
        let mut scratch = Vec::new();
        let drawn = memory::count_lines(&self.trace, &mut scratch);
        // The naive scan traces every unit per query: sample few.
        let samples = if self.settings.strategy == Strategy::Naive {
            2
        } else {
            256
        };
        let max = memory_view::STRIP_WIDTH * memory_view::STRIP_ROWS;
        let modeled = self.refresh_model();
        let sim = &self.sim;
        let store = sim.store();
        MemoryView {
            modeled,
            layout: self.settings.layout.name(),
            strategy: self.settings.strategy.name(),
            unit: (store.hot(i).id, selected.is_some()),
            unit_strips: memory::strips(&store.regions(), &self.trace.unit_reads, max),
            index_strips: memory::strips(&memory::index_regions(sim), &self.trace.index_reads, max),
            drawn,
            mean: (memory::mean_lines(sim, r, samples), samples.min(n)),
            unit_bytes_per_candidate: match self.settings.strategy {
                Strategy::SortedGrid => 0,
                _ => store.bytes_read_per_candidate(),
            },
            index_bytes_per_candidate: match self.settings.strategy {
                Strategy::Naive => 0,
                Strategy::Grid => 4,
                Strategy::SortedGrid => 12,
            },
            bytes_per_unit: store.bytes_per_unit(),
        }
    }

    /// The memory view's cache model and the frame it was made at: made
    /// again when the settings (kernel and threads aside, which change no
    /// modeled read) differ from the last one's, or
    /// [`memory_view::MODEL_EVERY`] frames
    /// after it.
    fn refresh_model(&mut self) -> Option<(memory::modeled::Modeled, u64)> {
        use crate::measure::memory::modeled::{model_key, model_queries, QuerySample};
        use crate::settings::view::Geometry;
        let key = model_key(&self.settings);
        let geometry: Geometry = self.view.settings.cache_model;
        let stale = self.modeled.as_ref().is_none_or(|(k, at, m)| {
            *k != key || m.geometry != geometry || self.frame >= at + memory_view::MODEL_EVERY
        });
        if stale {
            let m = model_queries(&self.sim, key.radius, geometry, QuerySample::default());
            self.modeled = m.ok().map(|m| (key, self.frame, m));
        }
        self.modeled.as_ref().map(|(_, at, m)| (m.clone(), *at))
    }
}
