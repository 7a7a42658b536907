//! The budget guards' side of the frame loop: the budgets the settings are
//! kept within, the notices the guards left (newest of each kind, until
//! dismissed), a refused thread count, the limits the controls offer, and
//! how many queries a sliced frame runs per refresh to start with.

use super::App;
use crate::engine::sim::Settings;
use crate::engine::spatial::Strategy;
use crate::settings::budget::{self, Budget, GuardNotice, NaiveCost};

/// Naive queries per refresh when the cost model has no figure for the
/// kernel and layout (not expected: every pair is measured at start).
const NAIVE_FALLBACK_SLICE: usize = 1_000;
/// Queries of the first slice of a Grid frame after its settings changed,
/// at more units than this: a million units through AoS pointers take
/// about 330 ms of queries, which one refresh must not wait for.
const GRID_FIRST_SLICE: usize = 100_000;

/// The budget guards and what they said.
pub(super) struct Guards {
    /// The budgets the settings are kept within.
    pub budget: Budget,
    /// The naive scan's measured cost per kernel and layout on this machine.
    naive_cost: NaiveCost,
    /// The notices shown: the newest of each kind, in arrival order.
    notices: Vec<GuardNotice>,
    /// The thread count whose refusal the notices last reported.
    threads_refused: Option<usize>,
}

/// The limits the overlay's controls offer and the first slicing of a
/// frame, at some settings ([`Guards::limits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Limits {
    /// Queries per step call to start with; `usize::MAX`: whole frames.
    pub query_slice: usize,
    /// The cost model's seconds of a Naive frame, for the overlay.
    pub naive_estimate_s: Option<f64>,
    /// The largest radius the pair budget allows, world units.
    pub radius_max: f32,
    /// The smallest cell size the cell budget allows, world units.
    pub cell_min: f32,
}

impl Guards {
    /// No notice yet, within `budget`, with the naive scan's measured cost.
    pub fn new(budget: Budget, naive_cost: NaiveCost) -> Self {
        Guards {
            budget,
            naive_cost,
            notices: Vec::new(),
            threads_refused: None,
        }
    }

    /// Keeps the newest notice of each kind, in arrival order, and puts
    /// their lines in `shown` (the overlay's); nothing changes when there
    /// are no `notices`.
    pub fn add(&mut self, notices: Vec<GuardNotice>, shown: &mut Vec<String>) {
        if notices.is_empty() {
            return;
        }
        for n in notices {
            self.notices.retain(|o| o.kind() != n.kind());
            self.notices.push(n);
        }
        *shown = self.lines();
    }

    /// Dismisses notice `k` (an index of `shown`, the overlay's lines), if
    /// there is one.
    pub fn dismiss(&mut self, k: usize, shown: &mut Vec<String>) {
        if k < self.notices.len() {
            self.notices.remove(k);
            shown.remove(k);
        }
    }

    /// Records the thread count the OS refused now (`refused`: the count
    /// asked for, or `None`); returns whether that changed since the
    /// last call.
    pub fn threads_refused(&mut self, refused: Option<usize>) -> bool {
        let changed = refused != self.threads_refused;
        self.threads_refused = refused;
        changed
    }

    /// Shows `notice` of a refused thread count, or, with `None`, drops the
    /// one shown (the asked threads run again); `shown` as in [`Guards::add`].
    pub fn threads_notice(&mut self, notice: Option<GuardNotice>, shown: &mut Vec<String>) {
        match notice {
            Some(n) => self.add(vec![n], shown),
            None => {
                self.notices.retain(|n| n.kind() != "threads");
                *shown = self.lines();
            }
        }
    }

    /// The notices' lines, as the overlay shows them.
    fn lines(&self) -> Vec<String> {
        self.notices.iter().map(ToString::to_string).collect()
    }

    /// The limits the overlay's controls offer at settings `s`, with
    /// `refused` the thread count the OS refused (if any) and `cores` the
    /// machine's.
    pub fn limits(&self, s: &Settings, refused: Option<usize>, cores: usize) -> Limits {
        // The threads that can work at once: no more than the cores, and one
        // when the OS refused the count asked for (then the frames run on one).
        let threads = match refused {
            Some(asked) if asked == s.threads => 1,
            _ => s.threads.clamp(1, cores.max(1)),
        };
        // Frames whose queries take longer than the slice budget are
        // spread over refreshes: for Naive the model's queries per refresh
        // to start with; for Grid slices of GRID_FIRST_SLICE above that many
        // units, else whole frames until one is measured too slow; then
        // adapted to the measured slices ([`super::stepping::Stepping::adapt_slice`]).
        let (query_slice, naive_estimate_s) = if s.strategy == Strategy::Naive {
            let per_slice = self.naive_cost.slice_queries(
                s.kernel,
                s.layout,
                s.units,
                threads,
                self.budget.slice_s,
            );
            (
                per_slice.unwrap_or(NAIVE_FALLBACK_SLICE),
                self.naive_cost
                    .frame_seconds(s.kernel, s.layout, s.units, threads),
            )
        } else if s.strategy == Strategy::Grid && s.units > GRID_FIRST_SLICE {
            // Not measured yet at these settings: slices from the start,
            // growing 4x per call until the frame fits one refresh.
            (GRID_FIRST_SLICE, None)
        } else {
            (usize::MAX, None)
        };
        let world = s.world_edge();
        Limits {
            query_slice,
            naive_estimate_s,
            radius_max: budget::max_radius(s.units, world, &self.budget),
            cell_min: budget::min_cell_size(s.strategy, s.units, world, s.radius, &self.budget).0,
        }
    }
}

impl App {
    /// Shows the guards' `notices` ([`Guards::add`]).
    pub(super) fn add_notices(&mut self, notices: Vec<GuardNotice>) {
        self.guards.add(notices, &mut self.stats.notices);
    }

    /// A notice when the OS refused the thread count asked for (once per
    /// refusal: dismissed, it stays dismissed), gone once the asked
    /// threads run again.
    pub(super) fn note_threads(&mut self) {
        if !self
            .guards
            .threads_refused(self.sim.pool_error().map(|r| r.0))
        {
            return;
        }
        // The slices and estimates follow the threads that run.
        self.update_limits();
        let notice = self
            .sim
            .pool_error()
            .map(|(asked, why)| GuardNotice::ThreadsRefused {
                asked,
                ran: self.sim.threads(),
                why: why.to_string(),
            });
        self.guards.threads_notice(notice, &mut self.stats.notices);
    }

    /// The limits the overlay's controls offer at the current settings,
    /// and the first slicing of a frame ([`Guards::limits`]).
    pub(super) fn update_limits(&mut self) {
        let refused = self.sim.pool_error().map(|r| r.0);
        let l = self
            .guards
            .limits(&self.settings, refused, self.stats.cores);
        self.stepping.query_slice = l.query_slice;
        self.stats.naive_estimate_s = l.naive_estimate_s;
        self.stats.radius_max = l.radius_max;
        self.stats.cell_min = l.cell_min;
    }
}
