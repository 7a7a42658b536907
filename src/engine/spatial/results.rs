//! The per-unit pass: one query per unit, results either as neighbor lists
//! in CSR form per chunk ([`query_chunks`], the "collect ids" pass) or as
//! one [`Near`] per unit ([`near_chunks`], the fused pass).

use super::{pool_threads, Kernel, Near, Points, Positions, Query, QueryStats, SpatialIndex};
use rayon::prelude::*;
use std::ops::Range;

/// The neighbor lists of one contiguous range of units, in CSR form.
///
/// Unit `start + k` has neighbors `ids[offsets[k] as usize..offsets[k + 1] as usize]`
/// (unspecified order). Aligned to 128 bytes so two threads filling adjacent
/// chunks never share a cache line (no false sharing on the `Vec` headers).
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
pub struct ChunkResults {
    /// First unit of the chunk.
    pub start: usize,
    /// One past the last unit of the chunk.
    pub end: usize,
    /// `end - start + 1` offsets into `ids`; `offsets[0] == 0`.
    pub offsets: Vec<u32>,
    /// Concatenated neighbor ids.
    pub ids: Vec<u32>,
    /// Counters for this chunk's queries.
    pub stats: QueryStats,
}

impl ChunkResults {
    /// Neighbors of unit `i` (`start <= i < end`).
    ///
    /// # Panics
    /// If `i` is outside the chunk.
    #[inline]
    pub fn neighbors(&self, i: usize) -> &[u32] {
        let k = i - self.start;
        &self.ids[self.offsets[k] as usize..self.offsets[k + 1] as usize]
    }
}

/// Neighbor lists of every unit of one frame, split into chunks (one or more
/// per thread). Buffers are kept across frames: after warm-up, a frame with the
/// same unit count and chunk count allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct QueryResults {
    /// Chunks in unit order, covering `0..n` without gaps.
    pub chunks: Vec<ChunkResults>,
}

impl QueryResults {
    /// Splits `0..n` into `chunks` ranges of `ceil(n / chunks)` units (the
    /// last ones shorter or empty) and clears the lists, keeping their
    /// capacity. `chunks` is raised to at least 1.
    pub fn prepare(&mut self, n: usize, chunks: usize) {
        let chunks = chunks.max(1);
        let size = n.div_ceil(chunks);
        self.chunks.resize_with(chunks, ChunkResults::default);
        for (k, c) in self.chunks.iter_mut().enumerate() {
            c.start = (k * size).min(n);
            c.end = ((k + 1) * size).min(n);
            c.offsets.clear();
            c.offsets.push(0);
            c.ids.clear();
            c.stats = QueryStats::default();
        }
    }

    /// Neighbors of unit `i`.
    ///
    /// # Panics
    /// If `i` is not covered by the last [`query_all`].
    pub fn neighbors(&self, i: usize) -> &[u32] {
        self.try_neighbors(i)
            .expect("unit index outside the queried range")
    }

    /// Neighbors of unit `i`, or `None` when no filled chunk covers it (out
    /// of range, or a chunk prepared but not yet queried, as in the middle
    /// of a sliced frame). Finds the chunk by binary search (chunks are in
    /// unit order).
    pub fn try_neighbors(&self, i: usize) -> Option<&[u32]> {
        let k = self.chunks.partition_point(|c| c.end <= i);
        let c = self.chunks.get(k).filter(|c| c.start <= i && i < c.end)?;
        let j = i - c.start;
        let (a, b) = (*c.offsets.get(j)?, *c.offsets.get(j + 1)?);
        c.ids.get(a as usize..b as usize)
    }

    /// Sum of the chunks' counters.
    pub fn stats(&self) -> QueryStats {
        let mut s = QueryStats::default();
        for c in &self.chunks {
            s += c.stats;
        }
        s
    }
}

/// Runs one query per unit: center = the unit's position, radius `r`, the unit
/// itself excluded by index. Fills `results` and returns the summed counters.
///
/// In a rayon pool ([`super::pool_threads`]), chunks (four per pool thread)
/// run on the pool's threads, each writing only its own chunk's buffers; the
/// lists are identical to the single-threaded run. Outside a pool everything
/// runs on the calling thread in one chunk. A unit with a non-finite position gets an empty list.
/// Allocates only while the result buffers grow.
pub fn query_all(
    index: &dyn SpatialIndex,
    points: Points<'_>,
    r: f32,
    kernel: Kernel,
    results: &mut QueryResults,
) -> QueryStats {
    query_chunks(points.len(), results, |c| {
        index.query_units(points, r, kernel, c)
    })
}

/// The per-unit pass over `chunk`'s units, one query at a time: for each
/// unit `i`, the query centered on `p.pos(i)` with radius `r` excluding `i`,
/// answered by `query` (which appends the ids to the given buffer); pushes
/// each unit's end offset. Returns the summed counters. The loop every
/// strategy without shared per-unit work uses.
#[inline]
pub fn per_unit<P, F>(p: &P, r: f32, chunk: &mut ChunkResults, mut query: F) -> QueryStats
where
    P: Positions + ?Sized,
    F: FnMut(&Query, &mut Vec<u32>) -> QueryStats,
{
    let mut stats = QueryStats::default();
    for i in chunk.start..chunk.end {
        let (cx, cz) = p.pos(i);
        let q = Query {
            exclude: i as u32,
            ..Query::new(cx, cz, r)
        };
        stats += query(&q, &mut chunk.ids);
        chunk.offsets.push(chunk.ids.len() as u32);
    }
    stats
}

/// Chunks per pool thread in the per-unit pass (more chunks than threads
/// balance uneven cells).
const CHUNKS_PER_THREAD: usize = 4;

/// The per-unit pass over `n` units, whatever answers the queries: splits
/// `0..n` into chunks (one outside a rayon pool, four per thread of the
/// pool the caller runs in: [`super::pool_threads`]), runs `run` on each
/// chunk (on the pool's threads) and
/// returns the summed counters. `run` fills the chunk's `ids` and `offsets`
/// (`offsets` starts as `[0]`) and returns the chunk's counters. Allocates
/// only while the result buffers grow.
pub fn query_chunks<F>(n: usize, results: &mut QueryResults, run: F) -> QueryStats
where
    F: Fn(&mut ChunkResults) -> QueryStats + Sync,
{
    let run = |c: &mut ChunkResults| c.stats = query_chunk(&run, c);
    let threads = pool_threads();
    if threads > 1 {
        results.prepare(n, threads * CHUNKS_PER_THREAD);
        results.chunks.par_iter_mut().for_each(run);
    } else {
        results.prepare(n, 1);
        results.chunks.iter_mut().for_each(run);
    }
    results.stats()
}

/// The fused pass's per-frame buffers: one [`Near`] per unit and, per chunk,
/// a scratch id list for strategies that still collect ids per query (the
/// list is consumed by the next query, never kept for the frame). Kept
/// across frames: after warm-up a frame allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct NearResults {
    /// Aggregates of unit `i` at index `i`.
    pub near: Vec<Near>,
    /// One scratch list per chunk (128-byte aligned, so threads never share
    /// a line).
    scratch: Vec<ChunkResults>,
    /// Aggregates by slot of the CSR grid, before they are gathered into
    /// unit order ([`super::SortedGrid::near_all`]).
    pub by_slot: Vec<Near>,
    /// Counters of the last pass.
    pub stats: QueryStats,
}

impl NearResults {
    /// Forgets the aggregates (e.g. after a respawn), keeping capacity.
    pub fn clear(&mut self) {
        self.near.clear();
        self.stats = QueryStats::default();
    }
}

/// The fused per-unit pass over `n` units: resizes `res.near` to `n`, splits
/// `0..n` into the same chunks as [`query_chunks`] (one outside a pool,
/// four per thread in one), and runs `run(start, near, scratch)` per chunk on
/// the pool's threads, where `near` is the chunk's slice of `res.near`
/// (unit `start + k` at `near[k]`) and `scratch` an empty id list the chunk
/// may use per query. Returns and stores the summed counters. Allocates only
/// while the buffers grow.
pub fn near_chunks<F>(n: usize, res: &mut NearResults, run: F) -> QueryStats
where
    F: Fn(usize, &mut [Near], &mut Vec<u32>) -> QueryStats + Sync,
{
    res.near.resize(n, Near::default());
    let stats = near_range(0..n, res, run);
    res.stats = stats;
    stats
}

/// The fused per-unit pass over the units of `range` only (a slice of an
/// amortized frame): like [`near_chunks`], but writes `res.near[range]`
/// alone and leaves `res.stats` as it is. Returns the range's counters.
///
/// # Panics
/// If `range.end > res.near.len()` (size `res.near` first).
pub fn near_range<F>(range: Range<usize>, res: &mut NearResults, run: F) -> QueryStats
where
    F: Fn(usize, &mut [Near], &mut Vec<u32>) -> QueryStats + Sync,
{
    let n = range.len();
    let first = range.start;
    let threads = pool_threads();
    let chunks = if threads > 1 {
        threads * CHUNKS_PER_THREAD
    } else {
        1
    };
    let size = n.div_ceil(chunks).max(1);
    let used = n.div_ceil(size);
    if res.scratch.len() < used {
        res.scratch.resize_with(used, ChunkResults::default);
    }
    let one = |(k, (near, c)): (usize, (&mut [Near], &mut ChunkResults))| {
        c.ids.clear();
        c.stats = near_chunk(&run, first + k * size, near, &mut c.ids);
    };
    let scratch = &mut res.scratch[..used];
    let near = &mut res.near[range];
    if used > 1 {
        near.par_chunks_mut(size)
            .zip(scratch.par_iter_mut())
            .enumerate()
            .for_each(one)
    } else {
        near.chunks_mut(size)
            .zip(scratch.iter_mut())
            .enumerate()
            .for_each(one)
    }
    let mut stats = QueryStats::default();
    for c in &res.scratch[..used] {
        stats += c.stats;
    }
    stats
}

/// Runs `run` on the chunks `chunks` of `results` alone (a slice of an
/// amortized frame; [`QueryResults::prepare`] made the chunks), on the
/// threads of the pool the caller runs in, and returns their summed
/// counters; each chunk keeps its own in `stats`.
///
/// # Panics
/// If `chunks.end` exceeds the prepared chunks.
pub fn query_chunk_range<F>(results: &mut QueryResults, chunks: Range<usize>, run: F) -> QueryStats
where
    F: Fn(&mut ChunkResults) -> QueryStats + Sync,
{
    let run = |c: &mut ChunkResults| c.stats = query_chunk(&run, c);
    let part = &mut results.chunks[chunks];
    if pool_threads() > 1 && part.len() > 1 {
        part.par_iter_mut().for_each(run);
    } else {
        part.iter_mut().for_each(run);
    }
    let mut stats = QueryStats::default();
    for c in part.iter() {
        stats += c.stats;
    }
    stats
}

/// One chunk of the fused pass; never inlined, like [`query_chunk`], so a
/// profiler can tell the phase apart by name.
#[inline(never)]
fn near_chunk<F>(run: &F, start: usize, near: &mut [Near], scratch: &mut Vec<u32>) -> QueryStats
where
    F: Fn(usize, &mut [Near], &mut Vec<u32>) -> QueryStats,
{
    run(start, near, scratch)
}

/// The fused pass of a strategy that answers queries with id lists:
/// for each unit `start + k`, collects its neighbors (center = its position,
/// radius `r`, itself excluded) into `scratch` with `query` and sums them
/// into `near[k]` with [`Near::add`], reading the neighbors' positions and
/// teams through `p` and `team`. The list lives only until the next query.
pub fn near_per_unit<P, T, F>(
    p: &P,
    team: T,
    r: f32,
    start: usize,
    near: &mut [Near],
    scratch: &mut Vec<u32>,
    mut query: F,
) -> QueryStats
where
    P: Positions + ?Sized,
    T: Fn(usize) -> u8,
    F: FnMut(&Query, &mut Vec<u32>) -> QueryStats,
{
    let mut stats = QueryStats::default();
    for (k, out) in near.iter_mut().enumerate() {
        let i = start + k;
        let (cx, cz) = p.pos(i);
        let q = Query {
            exclude: i as u32,
            ..Query::new(cx, cz, r)
        };
        scratch.clear();
        stats += query(&q, scratch);
        let me = (cx, cz, team(i));
        let mut acc = Near::default();
        for &j in scratch.iter() {
            let (xj, zj) = p.pos(j as usize);
            acc.add(me, (xj, zj, team(j as usize)));
        }
        *out = acc;
    }
    stats
}

/// One chunk of the per-unit pass. Never inlined, so profilers can tell a
/// chunk's work apart by this name (`scripts/cache-report.sh` counts the
/// whole query phase, `crate::engine::sim::step::query_phase`, instead).
#[inline(never)]
fn query_chunk<F>(run: &F, c: &mut ChunkResults) -> QueryStats
where
    F: Fn(&mut ChunkResults) -> QueryStats,
{
    run(c)
}
