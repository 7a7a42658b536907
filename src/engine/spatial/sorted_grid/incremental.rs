//! The resident rebuild from last frame's order: while the units live in
//! cell order ([`SortedGrid::rebuild_resident`]) and the grid keeps its
//! geometry, the stable counting sort of this frame is a merge of two
//! sorted sequences — the units still in the cell they were sorted into
//! (already in order) and the few that changed cell (about 1% per frame
//! at the standard speed, `docs/workloads.md`), sorted by cell — so
//! no histogram per thread, no per-cell cursors and no scattered writes
//! are needed. The result (permutation, cell starts, sorted columns) is
//! the counting sort's, entry for entry, so nothing downstream can tell
//! the two apart. The idea of reusing the previous frame's order is that
//! of Oliveira et al., "Exploiting Space and Time Coherence in Grid-based
//! Sorting", SIBGRAPI 2013; the merge is ours.

use rayon::prelude::*;

use super::{cells_of, in_fixed_range, Carried, SortedGrid, NOT_INDEXED};
use crate::engine::spatial::{pool_threads, Bounds, GridGeometry, Points};

/// Merge ranges per pool thread (more ranges than threads balance them).
const PARTS_PER_THREAD: usize = 4;

/// The mover buffers hold at least `1 / HEADROOM` of the units (about 1%
/// change cell per frame at the standard speed): a steady state allocates
/// nothing.
const HEADROOM: usize = 16;

/// Slots whose cells the detection computes at a time, on the stack (this
/// frame's cells and last frame's, about 32 KiB).
const DETECT_CHUNK: usize = 4096;

/// Entries [`slot_cells`] may write past the slots it is asked for.
const SLOT_CELLS_SLACK: usize = 8;

/// Writes the cell of slots `first..` under the cell starts `starts` (a
/// cell's slots are `starts[c]..starts[c + 1]`) into `out`, for as many
/// slots as `out` holds less [`SLOT_CELLS_SLACK`]; the entries after them
/// are scratch. Each cell is written as whole stores of
/// `SLOT_CELLS_SLACK` entries, the next cell's overwriting the excess, so
/// a cell of up to that many slots costs one store and no loop.
///
/// # Panics
/// If `out` is shorter than the slack, or a slot asked for is not below
/// `starts`'s last entry.
fn slot_cells(starts: &[u32], first: usize, out: &mut [u32]) {
    const W: usize = SLOT_CELLS_SLACK;
    assert!(out.len() >= W, "room for the slack");
    let end = first + out.len() - W;
    // The cell of slot `first`: the last whose start is at or before it.
    let mut c = starts.partition_point(|&s| s as usize <= first) - 1;
    let mut k = first;
    while k < end {
        let e = (starts[c + 1] as usize).min(end);
        while k < e {
            out[k - first..k - first + W].fill(c as u32);
            k += W;
        }
        k = e;
        c += 1;
    }
}

/// A mover: its new cell in the high half, its slot (input index) in the
/// low half, so that sorting the keys sorts by (cell, slot), the counting
/// sort's order.
#[inline]
fn mover(cell: u32, slot: usize) -> u64 {
    ((cell as u64) << 32) | slot as u64
}

/// What the merge rebuild keeps between frames, and its scratch buffers
/// (kept so that a steady state allocates nothing).
#[derive(Clone, Debug, Default)]
pub(super) struct MergeState {
    /// Last frame's cell starts.
    old_start: Vec<u32>,
    /// The movers, sorted by (new cell, slot).
    pub(super) movers: Vec<u64>,
    /// Scratch for sorting the movers ([`sort_movers`]).
    sorting: Vec<u64>,
    /// The slots the movers leave, ascending.
    holes: Vec<u32>,
    /// The cells the movers leave, in the order of `holes` (ascending).
    left: Vec<u32>,
    /// The movers found per range of slots, and the cells they leave.
    mover_parts: Vec<Movers>,
    /// Whether the last rebuild was the merge.
    pub(super) merged: bool,
}

/// The movers one range of slots found, in slot order: their [`mover`]
/// keys and the cells they leave.
type Movers = (Vec<u64>, Vec<u32>);

/// The sorted outputs of one merge range (all of equal length, the
/// carried columns' outputs included).
struct Out<'a> {
    x: &'a mut [f32],
    z: &'a mut [f32],
    ids: &'a mut [u32],
    team: &'a mut [u32],
    /// The caller's columns carried along.
    carried: Carried<'a>,
}

impl<'a> Out<'a> {
    /// The first `k` slots and the rest.
    fn split_at(self, k: usize) -> (Out<'a>, Out<'a>) {
        let (x0, x1) = self.x.split_at_mut(k);
        let (z0, z1) = self.z.split_at_mut(k);
        let (i0, i1) = self.ids.split_at_mut(k);
        let (t0, t1) = self.team.split_at_mut(k);
        let (r0, r1) = self.carried.split_at(k);
        (
            Out {
                x: x0,
                z: z0,
                ids: i0,
                team: t0,
                carried: r0,
            },
            Out {
                x: x1,
                z: z1,
                ids: i1,
                team: t1,
                carried: r1,
            },
        )
    }
}

/// The inputs of the merge, indexed by slot (this frame's input order).
#[derive(Clone, Copy)]
struct Src<'a> {
    x: &'a [f32],
    z: &'a [f32],
    teams: &'a [u8],
}

impl SortedGrid {
    /// The resident rebuild of [`SortedGrid::rebuild_resident`] done as a
    /// merge of last frame's order with the units that changed cell, when
    /// it applies: the units live in cell order from the last rebuild,
    /// their number is unchanged, the bounds give the same
    /// [`GridGeometry`] and every position is finite. Returns false (with
    /// the grid unchanged but for scratch buffers) when it does not apply;
    /// the caller then runs the full rebuild. `carried` is written only
    /// when it returns true.
    ///
    /// On success the sorted x and z are swapped into `x` and `z` and the
    /// grid is in exactly the state the full rebuild would leave (the same
    /// permutation in `ids`, cell starts, team column, `in_range`), except
    /// `slot_of`, which is not kept while resident (nothing reads it then).
    /// Threads: the bounds, the cells and the merge run on the pool's
    /// threads; the merge is split by cells, so its result does not depend
    /// on their number. Allocates only while buffers grow.
    pub(super) fn rebuild_moved(
        &mut self,
        x: &mut Vec<f32>,
        z: &mut Vec<f32>,
        teams: &[u8],
        cell_size: f32,
        carried: Carried<'_>,
    ) -> bool {
        let n = x.len();
        // Last frame's cell starts say which cell every slot was in: all
        // n units indexed, the slots of cell c at cell_start[c]..[c + 1].
        let indexed = self.cell_start.last().map(|&s| s as usize);
        if !self.resident || n == 0 || indexed != Some(n) || self.ids.len() != n {
            return false;
        }
        let threads = pool_threads();
        let size = n.div_ceil(threads * PARTS_PER_THREAD).max(1);
        let points = Points::new(x, z);
        // One pass over the positions: this frame's bounds, and each slot's
        // cell in last frame's geometry, which the bounds must then confirm.
        let parts = n.div_ceil(size);
        if self.merge.mover_parts.len() < parts {
            self.merge.mover_parts.resize_with(parts, Default::default);
        }
        let starts = &self.cell_start[..];
        let geo = self.geo;
        let detect = |(t, found): (usize, &mut Movers)| {
            let first = t * size;
            let end = (first + size).min(n);
            let (to, left) = found;
            to.clear();
            left.clear();
            // Room for a sixteenth of the range from the start, so that
            // frames whose mover count varies do not allocate.
            to.reserve((end - first) / HEADROOM);
            left.reserve((end - first) / HEADROOM);
            // A slot left out of this frame's grid (a non-finite position)
            // has no cell (`NOT_INDEXED`), which no slot had before: it is a
            // mover, and flagged here instead of in a second pass.
            let mut unindexed = false;
            let mut b = Bounds::EMPTY;
            // Chunk by chunk, so the cells never leave the stack and the
            // bounds read positions the cells just brought into L1.
            let mut key = [0u32; DETECT_CHUNK];
            let mut was = [0u32; DETECT_CHUNK + SLOT_CELLS_SLACK];
            for c0 in (first..end).step_by(DETECT_CHUNK) {
                let c1 = (c0 + DETECT_CHUNK).min(end);
                let key = &mut key[..c1 - c0];
                cells_of(&geo, points, c0, key);
                slot_cells(starts, c0, &mut was[..c1 - c0 + SLOT_CELLS_SLACK]);
                for (j, (&k, &w)) in key.iter().zip(&was[..c1 - c0]).enumerate() {
                    if k != w {
                        unindexed |= k == NOT_INDEXED;
                        to.push(mover(k, c0 + j));
                        left.push(w);
                    }
                }
                let chunk = Points::new(&points.x[c0..c1], &points.z[c0..c1]);
                b = Bounds::merge(b, Bounds::of(chunk));
            }
            (b, unindexed)
        };
        let moved = &mut self.merge.mover_parts[..parts];
        // One thread: no rayon at all (its parallel iterators may allocate).
        let bounds = if threads > 1 {
            moved
                .par_iter_mut()
                .enumerate()
                .map(detect)
                .reduce(|| (Bounds::EMPTY, false), merge_detected)
        } else {
            moved
                .iter_mut()
                .enumerate()
                .map(detect)
                .fold((Bounds::EMPTY, false), merge_detected)
        };
        let (bounds, unindexed) = bounds;
        if GridGeometry::from_bounds(&bounds, cell_size) != self.geo
            || bounds.finite != n
            || unindexed
        {
            return false;
        }
        // The movers by slot (the ranges found them in slot order): the
        // holes they leave and the cells they leave (ascending, as last
        // frame's cells are); then by (new cell, slot): where they go.
        let total: usize = moved.iter().map(|(to, _)| to.len()).sum();
        let m = &mut *self.merge;
        for v in [&mut m.holes, &mut m.left] {
            v.clear();
            v.reserve(total.max(n / HEADROOM));
        }
        for v in [&mut m.movers, &mut m.sorting] {
            v.clear();
            v.reserve(total.max(n / HEADROOM));
        }
        for (to, left) in m.mover_parts[..parts].iter() {
            m.movers.extend_from_slice(to);
            m.holes.extend(to.iter().map(|&t| t as u32));
            m.left.extend_from_slice(left);
        }
        sort_movers(&mut m.movers, &mut m.sorting);
        // The new cell starts: last frame's, shifted by the movers that
        // left and entered the cells before.
        std::mem::swap(&mut self.merge.old_start, &mut self.cell_start);
        let cells = self.geo.cells();
        self.cell_start.resize(cells + 1, 0);
        let events = (&self.merge.left[..], &self.merge.movers[..]);
        shifted_starts(&self.merge.old_start, events, &mut self.cell_start, threads);
        // The merge, by ranges of cells.
        self.x.resize(n, 0.0);
        self.z.resize(n, 0.0);
        self.team.resize(n, 0);
        let src = Src { x, z, teams };
        let out = Out {
            x: &mut self.x,
            z: &mut self.z,
            ids: &mut self.ids,
            team: &mut self.team,
            carried,
        };
        let ranges = if threads > 1 {
            (threads * PARTS_PER_THREAD).min(cells).max(1)
        } else {
            1
        };
        let starts = (&self.merge.old_start[..], &self.cell_start[..]);
        let events = (&self.merge.holes[..], &self.merge.movers[..]);
        merge_cells(src, starts, events, (0, cells), ranges, out);
        std::mem::swap(&mut self.x, x);
        std::mem::swap(&mut self.z, z);
        self.slot_of.resize(n, NOT_INDEXED);
        self.in_range = in_fixed_range(&bounds);
        self.resident = true;
        true
    }
}

/// Bits of the cell number per pass of [`sort_movers`].
const RADIX_BITS: u32 = 9;

/// Sorts `keys`, [`mover`] keys in ascending slot order, by (cell, slot):
/// a stable radix sort on the cell ([`RADIX_BITS`] per pass, least
/// significant first, no pass above the largest cell), so equal cells
/// keep their slot order. `tmp` is scratch: each pass swaps the two
/// vectors, so `keys` may come back in `tmp`'s buffer (reserve both alike).
/// Allocates only when `tmp` has less room than `keys` holds.
fn sort_movers(keys: &mut Vec<u64>, tmp: &mut Vec<u64>) {
    const BUCKETS: usize = 1 << RADIX_BITS;
    let cell = |k: u64| (k >> 32) as u32;
    let top = keys.iter().map(|&k| cell(k)).max().unwrap_or(0);
    let passes = (u32::BITS - top.leading_zeros()).div_ceil(RADIX_BITS);
    if passes == 0 {
        // Every mover enters cell 0: slot order is the order.
        return;
    }
    tmp.resize(keys.len(), 0);
    for p in 0..passes {
        let digit = |k: u64| ((cell(k) >> (p * RADIX_BITS)) as usize) & (BUCKETS - 1);
        let mut at = [0u32; BUCKETS];
        for &k in keys.iter() {
            at[digit(k)] += 1;
        }
        let mut sum = 0;
        for a in at.iter_mut() {
            (*a, sum) = (sum, sum + *a);
        }
        for &k in keys.iter() {
            let d = &mut at[digit(k)];
            tmp[*d as usize] = k;
            *d += 1;
        }
        std::mem::swap(keys, tmp);
    }
}

/// Two ranges' bounds and "some slot had no cell", merged.
fn merge_detected(a: (Bounds, bool), b: (Bounds, bool)) -> (Bounds, bool) {
    (Bounds::merge(a.0, b.0), a.1 | b.1)
}

/// Writes the cell starts after the movers into `new` (as long as `old`):
/// `new[c]` = `old[c]` + the movers entering a cell before `c` − those
/// leaving one, from the cells they leave (`left`, non-decreasing) and the
/// movers sorted by (cell, slot) (`movers`, see [`mover`]). The cells are
/// split into `parts` ranges run on the pool's threads (`parts <= 1`: no
/// rayon); each range starts from the shift of the events before it, found
/// by binary search, so the result does not depend on `parts`.
fn shifted_starts(old: &[u32], (left, movers): (&[u32], &[u64]), new: &mut [u32], parts: usize) {
    let size = old.len().div_ceil(parts.max(1)).max(1);
    let range = |(t, new): (usize, &mut [u32])| {
        let c0 = t * size;
        let c1 = c0 + new.len();
        let l = left.partition_point(|&a| (a as usize) < c0)
            ..left.partition_point(|&a| (a as usize) < c1);
        let first = |c: usize| mover(c as u32, 0);
        let e =
            movers.partition_point(|&m| m < first(c0))..movers.partition_point(|&m| m < first(c1));
        // Entered before c0 minus left before c0.
        let shift = e.start as i64 - l.start as i64;
        shift_range(
            &old[c0..c1],
            c0,
            left[l].iter().copied(),
            movers[e].iter().map(|&m| (m >> 32) as u32),
            shift,
            new,
        );
    };
    if parts > 1 {
        new.par_chunks_mut(size).enumerate().for_each(range);
    } else {
        new.chunks_mut(size).enumerate().for_each(range);
    }
}

/// [`shifted_starts`] for the cells `c0..c0 + old.len()`: `old` and `new`
/// are those cells' starts, `left` and `entered` the events in those cells
/// (absolute cell numbers) and `shift` the net count of movers that
/// entered minus those that left the cells before `c0`.
///
/// No branch per event that depends on the data: `new` first holds, at
/// each cell, the net count of events in the cell before it (an event in
/// cell `a` shifts the starts of the cells after `a`; one in the range's
/// last cell shifts only later ranges, through their `shift`), then the
/// running sum of those counts added to `old`. The counts wrap (u32), as
/// the sum of a prefix is the true shift.
///
/// # Panics
/// In debug builds, if an event lies before `c0` (the caller passes only
/// the events of these cells).
fn shift_range(
    old: &[u32],
    c0: usize,
    left: impl Iterator<Item = u32>,
    entered: impl Iterator<Item = u32>,
    shift: i64,
    new: &mut [u32],
) {
    new.fill(0);
    // The delta of cell `a + 1`, where it falls in this range.
    let next = |a: u32| {
        debug_assert!(
            a as usize >= c0,
            "event in cell {a} before the range at {c0}"
        );
        a as usize + 1 - c0
    };
    for a in left {
        if let Some(d) = new.get_mut(next(a)) {
            *d = d.wrapping_sub(1);
        }
    }
    for b in entered {
        if let Some(d) = new.get_mut(next(b)) {
            *d = d.wrapping_add(1);
        }
    }
    let mut acc = shift as u32;
    for (n, &o) in new.iter_mut().zip(old) {
        acc = acc.wrapping_add(*n);
        *n = o.wrapping_add(acc);
    }
}

/// Merges the slots of cells `c0..c1` into `out` (the new slots of those
/// cells), split into `ranges` parts of about equal units run through
/// `rayon::join`. `starts` are the old and the new cell starts; `events`
/// are the slots the movers leave (ascending) and the movers (sorted).
fn merge_cells(
    src: Src<'_>,
    starts: (&[u32], &[u32]),
    events: (&[u32], &[u64]),
    (c0, c1): (usize, usize),
    ranges: usize,
    out: Out<'_>,
) {
    let (old, new) = starts;
    if ranges <= 1 || c1 - c0 <= 1 {
        let (holes, movers) = events;
        let stay = old[c0] as usize..old[c1] as usize;
        let h0 = holes.partition_point(|&h| (h as usize) < stay.start);
        let h1 = holes.partition_point(|&h| (h as usize) < stay.end);
        let m0 = movers.partition_point(|&m| m < mover(c0 as u32, 0));
        let m1 = movers.partition_point(|&m| m < mover(c1 as u32, 0));
        merge_range(src, old, stay, (&holes[h0..h1], &movers[m0..m1]), out);
        return;
    }
    let (s0, s1) = (new[c0], new[c1]);
    let half = s0 + ((s1 - s0) as u64 * (ranges / 2) as u64 / ranges as u64) as u32;
    let mid = (c0 + new[c0..c1].partition_point(|&s| s < half)).clamp(c0 + 1, c1 - 1);
    let (left, right) = out.split_at((new[mid] - s0) as usize);
    rayon::join(
        || merge_cells(src, starts, events, (c0, mid), ranges / 2, left),
        || merge_cells(src, starts, events, (mid, c1), ranges - ranges / 2, right),
    );
}

/// The merge of one range of cells: the slots of `stay` that kept their
/// cell — runs between the `holes` (the slots of `stay` that changed cell,
/// ascending), each in order since the old cells do not decrease — and the
/// `movers` into those cells, by (cell, slot). Runs are copied whole.
///
/// # Panics
/// If the entries placed do not fill `out` exactly (starts that do not
/// match the cells).
fn merge_range(
    src: Src<'_>,
    old: &[u32],
    stay: std::ops::Range<usize>,
    (holes, movers): (&[u32], &[u64]),
    mut out: Out<'_>,
) {
    let len = out.x.len();
    let mut o = 0;
    let mut p = stay.start;
    let mut movers = movers.iter().copied().peekable();
    for run_end in holes.iter().map(|&h| h as usize).chain([stay.end]) {
        // Stayers p..run_end: (cell, slot) increases along the run.
        while let Some(&m) = movers.peek() {
            let (k, s) = ((m >> 32) as u32, m as u32 as usize);
            // The first stayer after (k, s): past the run's smaller cells,
            // and within cell k past the slots below s. Stayers keep their
            // cell, so those of cells below k are the slots below
            // old[k], and those of cell k the slots below old[k + 1].
            let within = |c: usize| (old[c] as usize).clamp(p, run_end);
            let (lo, hi) = (within(k as usize), within(k as usize + 1));
            let q = s.clamp(lo, hi);
            if q == run_end {
                break;
            }
            o = out.copy_run(src, p..q, o);
            o = out.put(src, s, o);
            p = q;
            movers.next();
        }
        o = out.copy_run(src, p..run_end, o);
        p = run_end + 1;
    }
    for m in movers {
        o = out.put(src, m as u32 as usize, o);
    }
    assert_eq!(o, len, "the merge fills its slots exactly");
}

impl Out<'_> {
    /// Copies the stayers of slots `run` to the outputs from `o`; returns
    /// the next output slot.
    #[inline]
    fn copy_run(&mut self, src: Src<'_>, run: std::ops::Range<usize>, o: usize) -> usize {
        let end = o + run.len();
        self.x[o..end].copy_from_slice(&src.x[run.clone()]);
        self.z[o..end].copy_from_slice(&src.z[run.clone()]);
        for (id, s) in self.ids[o..end].iter_mut().zip(run.clone()) {
            *id = s as u32;
        }
        for (t, &u) in self.team[o..end].iter_mut().zip(&src.teams[run.clone()]) {
            *t = u as u32;
        }
        self.carried.copy_run(run, o);
        end
    }

    /// Puts the unit of slot `s` at output slot `o`; returns the next.
    #[inline]
    fn put(&mut self, src: Src<'_>, s: usize, o: usize) -> usize {
        self.x[o] = src.x[s];
        self.z[o] = src.z[s];
        self.ids[o] = s as u32;
        self.team[o] = src.teams[s] as u32;
        self.carried.put(s, o);
        o + 1
    }
}

#[cfg(test)]
mod tests {
    use super::{mover, shifted_starts, slot_cells, sort_movers, SLOT_CELLS_SLACK};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The starts of `cells` cells whose lengths `len` draws (the last
    /// entry is the total).
    fn random_starts(
        rng: &mut StdRng,
        cells: usize,
        mut len: impl FnMut(&mut StdRng) -> u32,
    ) -> Vec<u32> {
        let mut starts = vec![0u32];
        for _ in 0..cells {
            let l = len(rng);
            starts.push(starts.last().unwrap() + l);
        }
        starts
    }

    /// Movers listed in slot order come out sorted by (cell, slot), as a
    /// sort of their keys puts them: cells from one digit to the top of
    /// u32 (0 to 4 passes, 2 for the about 200,000 cells of 1,000,000
    /// units), repeated cells, a single cell 0 (no pass at all), and none.
    #[test]
    fn movers_sort_by_cell_then_slot() {
        let mut rng = StdRng::seed_from_u64(4);
        let mut tmp = Vec::new();
        for round in 0..500 {
            let n = if round < 5 { 0 } else { rng.gen_range(0..300) };
            let top: u32 = match round % 5 {
                0 => 0,
                1 => 40,
                2 => 200_000,
                3 => 1 << 22,
                _ => u32::MAX,
            };
            let mut slot = 0;
            let mut keys: Vec<u64> = (0..n)
                .map(|_| {
                    slot += rng.gen_range(1..5);
                    mover(rng.gen_range(0..=top), slot)
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_movers(&mut keys, &mut tmp);
            assert_eq!(keys, expected, "round {round}");
        }
    }

    /// The shifted starts equal their definition, `old[c]` + the movers
    /// entering a cell before `c` − those leaving one, for any split into
    /// parts: events in the first and last cell, in a part's last cell
    /// (which shifts only the next part), several in one cell, and none.
    #[test]
    fn shifted_starts_equal_the_starts_plus_the_events_before_each_cell() {
        let mut rng = StdRng::seed_from_u64(9);
        for round in 0..300 {
            let cells = rng.gen_range(1..60);
            let old = random_starts(&mut rng, cells, |r| r.gen_range(0..6));
            let n = *old.last().unwrap() as usize;
            let moves = if n == 0 || round % 7 == 0 {
                0
            } else {
                rng.gen_range(0..=n.min(12))
            };
            // Each mover leaves a non-empty cell and enters any cell.
            let nonempty: Vec<u32> = (0..cells as u32)
                .filter(|&c| old[c as usize + 1] > old[c as usize])
                .collect();
            let mut left: Vec<u32> = (0..moves)
                .map(|_| nonempty[rng.gen_range(0..nonempty.len())])
                .collect();
            left.sort_unstable();
            let mut movers: Vec<u64> = (0..moves)
                .map(|k| mover(rng.gen_range(0..cells as u32), k))
                .collect();
            movers.sort_unstable();
            let expected: Vec<u32> = (0..=cells)
                .map(|c| {
                    let entered = movers.iter().filter(|&&m| ((m >> 32) as usize) < c).count();
                    let gone = left.iter().filter(|&&a| (a as usize) < c).count();
                    (old[c] as i64 + entered as i64 - gone as i64) as u32
                })
                .collect();
            for parts in [1, 2, 3, 5, 64] {
                let mut new = vec![u32::MAX; cells + 1];
                shifted_starts(&old, (&left, &movers), &mut new, parts);
                assert_eq!(
                    new, expected,
                    "round {round}, {parts} parts, old {old:?}, left {left:?}"
                );
            }
        }
    }

    /// The cell of each slot, written run by run with overlapping stores,
    /// equals the cell whose start range holds the slot, from any first
    /// slot and for empty cells and cells longer than the store width.
    #[test]
    fn slot_cells_equal_the_cell_whose_range_holds_the_slot() {
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..200 {
            let cells = rng.gen_range(1..40);
            let starts = random_starts(&mut rng, cells, |r| match r.gen_range(0..4) {
                0 => 0,
                1 => r.gen_range(9..30),
                _ => r.gen_range(1..9),
            });
            let n = *starts.last().unwrap() as usize;
            if n == 0 {
                continue;
            }
            let first = rng.gen_range(0..n);
            let end = rng.gen_range(first + 1..=n);
            let mut out = vec![u32::MAX; end - first + SLOT_CELLS_SLACK];
            slot_cells(&starts, first, &mut out);
            for (k, &got) in (first..end).zip(&out) {
                let c = got as usize;
                assert!(
                    c < cells && starts[c] as usize <= k && k < starts[c + 1] as usize,
                    "slot {k}: cell {got}, starts {starts:?}"
                );
            }
        }
    }
}
