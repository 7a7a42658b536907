//! The memory view: the cache lines one query of the last step touches
//! (the selected unit's, or one in the middle of storage), the mean over
//! sampled queries, and the cache model's counts, made again when the
//! work changes or every [`memory_view::MODEL_EVERY`] frames.
//!
//! [`MemoryPanel`] owns the view's buffers and model; [`MemoryPanel::view`]
//! reads a [`MemoryContext`] and returns what the overlay draws.

use crate::engine::sim::{Settings, Simulation};
use crate::engine::spatial::Strategy;
use crate::measure::memory;
use crate::measure::memory::modeled::Modeled;
use crate::settings::view::Geometry;
use crate::window::ui::memory_view::{self, MemoryView};

/// The cache model's counts and what they were made for.
pub(super) struct ModeledAt {
    /// The settings modeled, kernel and threads left out (they change no
    /// modeled read: [`memory::modeled::model_key`]).
    pub settings: Settings,
    /// The frame it was made at.
    pub frame: u64,
    /// The modeled hits and misses per level.
    pub counts: Modeled,
}

/// The memory view's state in the frame loop.
#[derive(Default)]
pub(super) struct MemoryPanel {
    /// The reads of the query drawn (kept for its buffers).
    trace: memory::QueryTrace,
    /// The last cache model, if one could be made.
    modeled: Option<ModeledAt>,
}

/// What the memory view reads of the window.
pub(super) struct MemoryContext<'a> {
    /// The simulation after the last step.
    pub sim: &'a Simulation,
    /// The settings it ran with.
    pub settings: &'a Settings,
    /// The cache the model counts for.
    pub geometry: Geometry,
    /// The frame running now.
    pub frame: u64,
}

impl MemoryPanel {
    /// The memory view of the last step: the query of the unit at storage
    /// index `selected` (or of a unit in the middle of storage), and the
    /// mean over sampled queries. Reuses the trace's buffers.
    pub fn view(&mut self, cx: &MemoryContext, selected: Option<usize>) -> MemoryView {
        let sim = cx.sim;
        let r = cx.settings.radius;
        let n = sim.len();
        let Some(i) = selected.or((n > 0).then_some(n / 2)) else {
            return MemoryView::default();
        };
        memory::trace_query(sim, i, r, &mut self.trace);
        let mut scratch = Vec::new();
        let drawn = memory::count_lines(&self.trace, &mut scratch);
        // The naive scan traces every unit per query: sample few.
        let samples = if cx.settings.strategy == Strategy::Naive {
            2
        } else {
            256
        };
        let max = memory_view::STRIP_WIDTH * memory_view::STRIP_ROWS;
        let modeled = self.refresh_model(cx);
        let store = sim.store();
        MemoryView {
            modeled,
            layout: cx.settings.layout.name(),
            strategy: cx.settings.strategy.name(),
            unit: (store.hot(i).id, selected.is_some()),
            unit_strips: memory::strips(&store.regions(), &self.trace.unit_reads, max),
            index_strips: memory::strips(&memory::index_regions(sim), &self.trace.index_reads, max),
            drawn,
            mean: (memory::mean_lines(sim, r, samples), samples.min(n)),
            unit_bytes_per_candidate: match cx.settings.strategy {
                Strategy::SortedGrid => 0,
                _ => store.bytes_read_per_candidate(),
            },
            index_bytes_per_candidate: match cx.settings.strategy {
                Strategy::Naive => 0,
                Strategy::Grid => 4,
                Strategy::SortedGrid => 12,
            },
            bytes_per_unit: store.bytes_per_unit(),
        }
    }

    /// The cache model and the frame it was made at: made again when the
    /// settings (kernel and threads aside, which change no modeled read)
    /// or the geometry differ from the last one's, or
    /// [`memory_view::MODEL_EVERY`] frames after it. Clones the counts.
    fn refresh_model(&mut self, cx: &MemoryContext) -> Option<(Modeled, u64)> {
        use crate::measure::memory::modeled::{model_key, model_queries, QuerySample};
        let key = model_key(cx.settings);
        let stale = self.modeled.as_ref().is_none_or(|m| {
            m.settings != key
                || m.counts.geometry != cx.geometry
                || cx.frame >= m.frame + memory_view::MODEL_EVERY
        });
        if stale {
            let m = model_queries(cx.sim, key.radius, cx.geometry, QuerySample::default());
            self.modeled = m.ok().map(|counts| ModeledAt {
                settings: key,
                frame: cx.frame,
                counts,
            });
        }
        self.modeled.as_ref().map(|m| (m.counts.clone(), m.frame))
    }
}
