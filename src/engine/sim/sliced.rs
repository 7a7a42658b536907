//! A frame spread over several calls ([`Simulation::step_sliced`]), so a
//! Naive or Grid frame too slow for one window refresh runs in pieces with
//! results bit-identical to one whole step.

use crate::platform::clock::Instant;

use super::index::Index;
use super::step::StepStats;
use super::{Pass, Settings, Simulation, UnitLayout};
use crate::engine::spatial::results::{near_per_unit, near_range, query_chunk_range};
use crate::engine::spatial::{pool_threads, Near, QueryResults, QueryStats, Strategy};
use crate::with_layout;

/// A frame whose pieces run over several calls of
/// [`Simulation::step_sliced`]: the units moved at its start; the units
/// before `next` have been queried.
#[derive(Debug)]
pub(super) struct SlicedFrame {
    /// The settings it began with; a call with other work abandons it.
    settings: Settings,
    /// Scaled time step of its move and apply, seconds.
    dt: f32,
    /// The pieces still to run before the queries: the reorder (when due),
    /// then the index rebuild.
    stage: Stage,
    /// The next unit to query.
    next: usize,
    /// The next chunk of the collect pass's lists to fill.
    next_chunk: usize,
    /// The phases so far; `query_s` sums the slices.
    stats: StepStats,
}

/// How [`Simulation::step_sliced`] may spread a frame over calls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slicing {
    /// Most queries per call (0 counts as 1); `usize::MAX` steps whole.
    pub queries: usize,
    /// Seconds a call should take about; the start and the apply of a
    /// frame share a call with a query slice only within half of it.
    pub seconds: f64,
}

impl Slicing {
    /// Every frame whole, in one call.
    pub const WHOLE: Slicing = Slicing {
        queries: usize::MAX,
        seconds: f64::INFINITY,
    };
}

/// The pieces of a sliced frame before its queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The units moved; the reorder (when due) is next.
    Moved,
    /// The units are in order; the index rebuild is next.
    Ordered,
    /// The index is built; query slices are next.
    Built,
}

/// What one call of [`Simulation::step_sliced`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepProgress {
    /// The frame is complete: its stats, with `query_s` summed over its
    /// slices and `slices` the calls it took.
    Done(StepStats),
    /// A piece of a sliced frame ran; the frame continues at the next call.
    Partial {
        /// Units queried so far in this frame.
        done: usize,
        /// Units the frame queries.
        of: usize,
        /// Wall-clock seconds of this call.
        slice_s: f64,
    },
}

impl Simulation {
    /// Advances the simulation like [`Simulation::step`], but spreads a
    /// Naive or Grid frame (one query per unit against an index built at the
    /// frame's start) over several calls, in pieces: churn and move, the
    /// reorder (when due), the index rebuild, slices of at most
    /// `slicing.queries` queries (at least 1), and the apply. A call runs one
    /// query slice at most, and a piece after another only while the call
    /// has used less than half of `slicing.seconds` (a query slice then gets
    /// the queries of the share still free); so a call costs about one piece. The call
    /// that applies the results returns [`StepProgress::Done`]; the others
    /// [`StepProgress::Partial`]. Later calls ignore their `dt`: the frame's
    /// time step is the first call's, and the results are those of one
    /// [`Simulation::step`] with it. SortedGrid frames, and frames of at most
    /// `slicing.queries` units, step whole.
    ///
    /// Between calls the units have moved but are not yet steered; picking
    /// and drawing read the moved positions. A call with settings that ask
    /// for other work ([`Settings::same_work`]) abandons the frame in
    /// progress and starts afresh. Hardware cache counters are not read in a
    /// sliced frame (`query_cache` is `None`).
    pub fn step_sliced(&mut self, dt: f32, settings: &Settings, slicing: Slicing) -> StepProgress {
        if self
            .pending
            .as_ref()
            .is_some_and(|p| !p.settings.same_work(settings))
        {
            self.pending = None;
        }
        self.sync(settings);
        let max = slicing.queries.max(1);
        let sliceable = matches!(settings.strategy, Strategy::Naive | Strategy::Grid);
        if self.pending.is_none() && (!sliceable || max >= self.len()) {
            return StepProgress::Done(self.step(dt, settings));
        }
        let pool = self.pool.take();
        let slicing = Slicing {
            queries: max,
            ..slicing
        };
        let mut progress = match &pool {
            Some(p) => p.install(|| self.slice_phases(dt, settings, slicing)),
            None => self.slice_phases(dt, settings, slicing),
        };
        self.pool = pool;
        if let StepProgress::Done(st) = &mut progress {
            // The threads of the call that finished the frame.
            st.threads = self.threads();
        }
        progress
    }

    /// One call of [`Simulation::step_sliced`], on the threads of the pool
    /// it runs in.
    fn slice_phases(&mut self, dt: f32, settings: &Settings, slicing: Slicing) -> StepProgress {
        let t0 = Instant::now();
        // The share of the call's time still free once a piece ran (every
        // call runs at least one piece, so the frame always progresses).
        let free = |ran: bool| {
            if ran {
                1.0 - t0.elapsed().as_secs_f64() / slicing.seconds
            } else {
                1.0
            }
        };
        let mut ran = false;
        if self.pending.is_none() {
            self.begin_sliced(dt, settings);
            ran = true;
        }
        let stage = |sim: &Simulation| sim.pending.as_ref().map(|p| p.stage);
        if stage(self) == Some(Stage::Moved) {
            if free(ran) < 0.5 {
                return self.partial(t0);
            }
            self.order_sliced(settings);
            ran = true;
        }
        if stage(self) == Some(Stage::Ordered) {
            if free(ran) < 0.5 {
                return self.partial(t0);
            }
            self.rebuild_sliced(settings, slicing.queries);
            ran = true;
        }
        if self.pending.as_ref().is_some_and(|p| p.next < self.len()) {
            // A slice gets the queries of the share still free.
            let share = free(ran);
            if share < 0.5 {
                return self.partial(t0);
            }
            self.query_slice(settings, ((slicing.queries as f64 * share) as usize).max(1));
            let done = self.pending.as_ref().is_none_or(|p| p.next >= self.len());
            if !done || free(true) < 0.5 {
                return self.partial(t0);
            }
        }
        let Some(p) = self.pending.take() else {
            return self.partial(t0);
        };
        self.near.stats = p.stats.query;
        self.pass = settings.pass;
        StepProgress::Done(self.finish_phases(p.stats, p.dt, &p.settings))
    }

    /// [`StepProgress::Partial`] for the frame in progress, the call having
    /// begun at `t0`.
    fn partial(&self, t0: Instant) -> StepProgress {
        StepProgress::Partial {
            done: self.pending.as_ref().map_or(0, |p| p.next),
            of: self.len(),
            slice_s: t0.elapsed().as_secs_f64(),
        }
    }

    /// The first piece of a sliced frame: churn and move.
    fn begin_sliced(&mut self, dt: f32, settings: &Settings) {
        let (stats, dt, _) = self.move_phase(dt, settings);
        self.pending = Some(SlicedFrame {
            settings: settings.clone(),
            dt,
            stage: Stage::Moved,
            next: 0,
            next_chunk: 0,
            stats,
        });
    }

    /// The second piece of a sliced frame: the reorder, when due.
    fn order_sliced(&mut self, settings: &Settings) {
        let t = Instant::now();
        let reordered = self.order_phase(settings);
        if let Some(p) = &mut self.pending {
            p.stats.reordered = reordered;
            p.stats.rebuild_s += t.elapsed().as_secs_f64();
            p.stage = Stage::Ordered;
        }
    }

    /// The third piece of a sliced frame: the index rebuilt and the result
    /// buffers sized for slices of `max` queries.
    fn rebuild_sliced(&mut self, settings: &Settings, max: usize) {
        let t = Instant::now();
        let n = self.len();
        // Chunks of the lists: a slice runs whole chunks, `threads` or more.
        let chunk = (max / pool_threads()).max(1);
        match settings.pass {
            Pass::Collect => {
                self.near.clear();
                self.results.prepare(n, n.div_ceil(chunk));
            }
            Pass::Fused => {
                self.results = QueryResults::default();
                self.near.near.clear();
                self.near.near.resize(n, Near::default());
            }
        }
        let Simulation {
            store,
            index,
            pending,
            ..
        } = self;
        match index {
            Index::Naive(ix) => ix.rebuild_len(n),
            Index::Grid(g) => with_layout!(&*store, l => g.rebuild_from(l, settings.cell_size)),
            // Not sliced (step_sliced steps it whole).
            Index::Sorted(_) => {}
        }
        if let Some(p) = pending {
            p.stats.rebuild_s += t.elapsed().as_secs_f64();
            p.stage = Stage::Built;
        }
    }

    /// The next slice of at most `max` queries of the sliced frame.
    fn query_slice(&mut self, settings: &Settings, max: usize) {
        let Simulation {
            store,
            index,
            results,
            near,
            pending: Some(p),
            ..
        } = self
        else {
            return;
        };
        let n = store.len();
        let t = Instant::now();
        let (r, kernel) = (settings.radius, settings.kernel);
        let end = match settings.pass {
            Pass::Collect => {
                let size = results.chunks.first().map_or(1, |c| c.end - c.start).max(1);
                let first = p.next_chunk.min(results.chunks.len().saturating_sub(1));
                let chunks = first
                    ..first
                        .saturating_add((max / size).max(1))
                        .min(results.chunks.len());
                let Some(end) = results
                    .chunks
                    .get(chunks.end.wrapping_sub(1))
                    .map(|c| c.end)
                else {
                    return;
                };
                p.next_chunk = chunks.end;
                p.stats.query += match &*index {
                    Index::Naive(ix) => {
                        with_layout!(&*store, l => query_chunk_range(results, chunks, |c| {
                            ix.query_units_in(l, r, kernel, c)
                        }))
                    }
                    Index::Grid(g) => {
                        with_layout!(&*store, l => query_chunk_range(results, chunks, |c| {
                            g.query_units_in(l, r, c)
                        }))
                    }
                    Index::Sorted(_) => QueryStats::default(),
                };
                end
            }
            Pass::Fused => {
                let end = p.next.saturating_add(max).min(n);
                let range = p.next..end;
                p.stats.query += match &*index {
                    Index::Naive(ix) => with_layout!(&*store, l => {
                        let team = |i: usize| l.team(i);
                        near_range(range, near, |first, out, scratch| {
                            near_per_unit(l, team, r, first, out, scratch, |q, o| {
                                ix.query_in(l, q, kernel, o)
                            })
                        })
                    }),
                    Index::Grid(g) => with_layout!(&*store, l => {
                        let team = |i: usize| l.team(i);
                        near_range(range, near, |first, out, scratch| {
                            near_per_unit(l, team, r, first, out, scratch, |q, o| {
                                g.query_in(l, q, o)
                            })
                        })
                    }),
                    Index::Sorted(_) => QueryStats::default(),
                };
                end
            }
        };
        p.stats.query_s += t.elapsed().as_secs_f64();
        p.stats.slices += 1;
        p.next = end;
    }
}
