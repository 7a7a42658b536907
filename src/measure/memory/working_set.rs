//! The working set of the query phase: how many distinct cache lines the
//! queries of one whole frame read, counted exactly from the addresses of
//! the current layout and index ([`working_set`]).

use super::{index_regions, LINE};
use crate::engine::sim::layout::{Region, UnitStore};
use crate::engine::sim::Simulation;

/// The working set of the query phase: the bytes of the distinct cache lines
/// ([`LINE`] bytes each) the queries of one whole frame read, so a measured
/// row can be put next to this machine's caches
/// ([`crate::measure::machine::Machine::fit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WorkingSet {
    /// Lines of the units' storage, bytes (a multiple of [`LINE`]).
    pub unit_bytes: u64,
    /// Lines of the spatial index's own storage not already counted in
    /// `unit_bytes`, bytes (a multiple of [`LINE`]; 0 for the naive scan).
    pub index_bytes: u64,
}

impl WorkingSet {
    /// `unit_bytes + index_bytes`.
    pub fn total(&self) -> u64 {
        self.unit_bytes + self.index_bytes
    }
}

/// The [`WorkingSet`] of the query phase of `sim` as it stands: the
/// distinct cache lines ([`LINE`] bytes) that the queries of one whole frame
/// read, counted from the real addresses of the current layout, index and
/// storage order (the same reads as [`trace_query`](super::trace_query),
/// taken over every query at once):
/// - units' storage: the lines holding what the query loop reads of each
///   unit ([`UnitLayout::position_reads`](crate::engine::sim::layout::UnitLayout::position_reads):
///   x and z of SoA and hot/cold, the 8 position bytes of an AoS object,
///   the pointer and the object's bytes for AoS pointers), for every unit
///   (each unit is the center of its own query and a candidate of the
///   queries around it);
/// - the index: the per-cell grid's whole array of cell `Vec` headers and
///   the used bytes (`4 * len`) of every non-empty cell's id buffer; the CSR
///   grid's x, z, ids (cell order) and its cell offsets, whole; nothing for
///   the naive scan. A line already counted for the units is not counted
///   again: with `--reorder resident`, SoA (or hot/cold) and the CSR grid
///   the CSR x and z are the units' own arrays and count once, as units.
///
/// Every query's own reads are a subset of these (the headers and offsets of
/// cells no query searches are counted too). Before the first step it counts
/// the current storage and whatever index the simulation holds (an empty
/// one: units only). Reads outside every region the layout and the index
/// name (none are expected) are still counted exactly, more slowly.
///
/// Cost: one pass over the units' reads (none for SoA and hot/cold, whose
/// x and z arrays are read whole) and the index's arrays, marking lines in
/// one bitmap per address span of the layout's and index's regions (up to
/// a few MiB at 1,000,000 units, allocated and freed here); no sort. Runs
/// on the calling thread. At 1,000,000 units (release, a 2-core AMD EPYC
/// VM, best of 15): 0.01 to 0.2 ms for SoA and hot/cold with the naive scan
/// or the CSR grid, 1.4 to 2 ms with the per-cell grid (its cells' id
/// buffers), 4 to 6 ms for AoS, 11 to 13 ms for AoS pointers (a random bit
/// per scattered object).
pub fn working_set(sim: &Simulation) -> WorkingSet {
    let store = sim.store();
    let index = index_regions(sim);
    let mut set = LineSet::new(store.regions().iter().chain(&index));
    mark_unit_reads(store, &mut set);
    let unit = set.count();
    let mut hint = 0;
    if let Some(g) = sim.uniform_grid() {
        let cells = g.cells();
        set.add(
            &mut hint,
            cells.as_ptr() as usize,
            std::mem::size_of_val(cells),
        );
        let mut reads = Vec::with_capacity(UNIT_BLOCK);
        let mut slot = [Slot::default()];
        for block in cells.chunks(UNIT_BLOCK) {
            reads.clear();
            reads.extend(
                block
                    .iter()
                    .map(|c| (c.as_ptr() as usize, std::mem::size_of_val(&c[..]))),
            );
            set.add_reads(&reads, &mut slot);
        }
    } else {
        for r in &index {
            set.add(&mut hint, r.start, r.bytes);
        }
    }
    let total = set.count();
    WorkingSet {
        unit_bytes: (unit * LINE) as u64,
        index_bytes: ((total - unit) * LINE) as u64,
    }
}

/// Marks in `set` the lines of every unit's position reads
/// ([`UnitLayout::position_reads`](crate::engine::sim::layout::UnitLayout::position_reads)).
/// A layout of dense x and z columns whose first and last units read
/// exactly `x[i]` and `z[i]` has the lines of the two whole arrays; any
/// other layout is read unit by unit, in blocks.
fn mark_unit_reads(store: &UnitStore, set: &mut LineSet) {
    use crate::engine::sim::layout::UnitLayout;
    use crate::engine::spatial::Positions;
    let n = store.len();
    if n == 0 {
        return;
    }
    let mut reads = Vec::with_capacity(2 * UNIT_BLOCK);
    crate::with_layout!(store, l => {
        if let Some(p) = l.soa() {
            let column = |i: usize| {
                [
                    (std::ptr::from_ref(&p.x[i]) as usize, 4),
                    (std::ptr::from_ref(&p.z[i]) as usize, 4),
                ]
            };
            let dense = p.len() == n
                && [0, n - 1].iter().all(|&i| {
                    reads.clear();
                    l.position_reads(i, &mut reads);
                    reads[..] == column(i)
                });
            if dense {
                set.add(&mut 0, p.x.as_ptr() as usize, 4 * n);
                set.add(&mut 0, p.z.as_ptr() as usize, 4 * n);
                return;
            }
        }
        // A block of units at a time. The k-th read of every unit (x, then
        // z; the pointer, then the object) has a slot of its own, when every
        // unit makes as many reads (else one slot: slower, as exact).
        let mut slots = Vec::new();
        for start in (0..n).step_by(UNIT_BLOCK) {
            let end = (start + UNIT_BLOCK).min(n);
            reads.clear();
            for i in start..end {
                l.position_reads(i, &mut reads);
            }
            let per = reads.len() / (end - start);
            let per = if per > 0 && per * (end - start) == reads.len() { per } else { 1 };
            slots.resize(per, Slot::default());
            set.add_reads(&reads, &mut slots[..per]);
        }
    });
}

/// Units whose reads [`mark_unit_reads`] gathers at a time.
const UNIT_BLOCK: usize = 1024;

/// A set of cache lines: one bitmap per span of lines (regions merged where
/// they overlap or nearly touch), and a list for lines outside every span.
struct LineSet {
    /// Sorted by first line, disjoint.
    spans: Vec<Span>,
    /// Lines outside every span, unsorted with repeats until `count`.
    other: Vec<usize>,
}

struct Span {
    first: usize,
    end: usize,
    bits: Vec<u64>,
}

/// One stream of reads of [`LineSet::add_reads`]: its span (lines
/// `first..end`, `span` in [`LineSet::spans`]; none until a read finds one)
/// and the last line it marked.
#[derive(Clone, Copy, Debug)]
struct Slot {
    span: usize,
    first: usize,
    end: usize,
    prev: usize,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            span: usize::MAX,
            first: usize::MAX,
            end: 0,
            prev: usize::MAX,
        }
    }
}

/// Regions whose line ranges are at most this many lines apart share a span.
const SPAN_GAP_LINES: usize = 4096;

/// Spans are capped at this many lines (8 GiB of address, a 16 MiB bitmap,
/// zeroed lazily by the OS); lines of a longer region go to the slower list.
const MAX_SPAN_LINES: usize = 1 << 27;

impl LineSet {
    fn new<'a>(regions: impl Iterator<Item = &'a Region>) -> LineSet {
        let mut ranges: Vec<(usize, usize)> = regions
            .filter(|r| r.bytes > 0)
            .map(|r| (r.start / LINE, (r.start + r.bytes - 1) / LINE + 1))
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (a, e) in ranges {
            match merged.last_mut() {
                // Overlapping ranges must share a span (spans are disjoint);
                // nearby ones do while the span stays under the cap.
                Some(m)
                    if a < m.1
                        || (a <= m.1.saturating_add(SPAN_GAP_LINES)
                            && e.max(m.1) - m.0 <= MAX_SPAN_LINES) =>
                {
                    m.1 = m.1.max(e)
                }
                _ => merged.push((a, e)),
            }
        }
        LineSet {
            spans: merged
                .into_iter()
                .filter(|&(a, e)| e - a <= MAX_SPAN_LINES)
                .map(|(first, end)| Span {
                    first,
                    end,
                    bits: vec![0; (end - first).div_ceil(64)],
                })
                .collect(),
            other: Vec::new(),
        }
    }

    /// Marks the lines of the `n` bytes at address `a` (none when `n` is
    /// 0). `hint` is the span to try first; it is left at the span found.
    fn add(&mut self, hint: &mut usize, a: usize, n: usize) {
        if n == 0 {
            return;
        }
        let (mut line, end) = (a / LINE, (a + n - 1) / LINE + 1);
        while line < end {
            match self.span_of(hint, line) {
                // The rest of the read, as far as it stays in this span.
                Some(k) => {
                    let s = &mut self.spans[k];
                    let to = end.min(s.end);
                    set_bits(&mut s.bits, line - s.first, to - s.first);
                    line = to;
                }
                None => {
                    self.other.push(line);
                    line += 1;
                }
            }
        }
    }

    /// Marks the lines of every `(address, bytes)` of `reads`, taken as
    /// units of `slots.len()` reads, the k-th read of each unit in slot k
    /// (a stream such as one array's elements): a read within the line the
    /// slot marked last is skipped, one within the slot's span is marked
    /// without looking spans up, others go through [`LineSet::add`]. The
    /// slots carry over to the next call (the next block of units).
    ///
    /// # Panics
    /// If `slots` is empty.
    fn add_reads(&mut self, reads: &[(usize, usize)], slots: &mut [Slot]) {
        let per = slots.len();
        let mut k = 0;
        for &(a, n) in reads {
            let slot = &mut slots[k];
            k = if k + 1 == per { 0 } else { k + 1 };
            if n == 0 {
                continue;
            }
            let (first, last) = (a / LINE, (a + n - 1) / LINE);
            if first == last && first == slot.prev {
                continue;
            }
            slot.prev = last;
            if first >= slot.first && last < slot.end {
                let bits = &mut self.spans[slot.span].bits;
                let l = first - slot.first;
                if first == last {
                    bits[l / 64] |= 1 << (l % 64);
                } else {
                    set_bits(bits, l, last + 1 - slot.first);
                }
                continue;
            }
            let mut hint = slot.span;
            self.add(&mut hint, a, n);
            if let Some(s) = (self.spans.get(hint)).filter(|s| s.first <= first && first < s.end) {
                (slot.span, slot.first, slot.end) = (hint, s.first, s.end);
            }
        }
    }

    /// The span holding `line`, if any, tried at `hint` first (set to it
    /// when found).
    fn span_of(&self, hint: &mut usize, line: usize) -> Option<usize> {
        let inside = |s: &Span| s.first <= line && line < s.end;
        if self.spans.get(*hint).is_some_and(inside) {
            return Some(*hint);
        }
        let k = self.spans.partition_point(|s| s.first <= line);
        let k = k.checked_sub(1).filter(|&k| inside(&self.spans[k]))?;
        *hint = k;
        Some(k)
    }

    /// Distinct lines marked so far.
    fn count(&mut self) -> usize {
        self.other.sort_unstable();
        self.other.dedup();
        let marked: usize = (self.spans.iter().flat_map(|s| &s.bits))
            .map(|w| w.count_ones() as usize)
            .sum();
        marked + self.other.len()
    }
}

/// Sets bits `lo..hi` of `bits`, a word at a time.
fn set_bits(bits: &mut [u64], lo: usize, hi: usize) {
    let mut l = lo;
    while l < hi {
        let (w, b) = (l / 64, l % 64);
        let n = (64 - b).min(hi - l);
        bits[w] |= (u64::MAX >> (64 - n)) << b;
        l += n;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{distinct_lines, trace_query, QueryTrace};
    use super::*;
    use crate::engine::sim::{Layout, Reorder, Settings};
    use crate::engine::spatial::Strategy;

    /// The working set counted the slow way: every unit's position reads
    /// and the index's arrays (read from the grids, not from
    /// `index_regions`) as `(address, bytes)` lists, their distinct lines
    /// sorted, the index's lines that are not units' lines.
    fn brute_force(sim: &Simulation) -> (WorkingSet, Vec<usize>, Vec<usize>) {
        let store = sim.store();
        let mut unit_reads = Vec::new();
        for i in 0..store.len() {
            store.position_reads(i, &mut unit_reads);
        }
        let mut index_reads = Vec::new();
        if let Some(g) = sim.uniform_grid() {
            let cells = g.cells();
            index_reads.push((cells.as_ptr() as usize, std::mem::size_of_val(cells)));
            for c in cells {
                index_reads.push((c.as_ptr() as usize, 4 * c.len()));
            }
        } else if let Some(g) = sim.sorted_grid() {
            let (x, z, ids) = g.sorted(sim.index_points());
            let starts = g.cell_start();
            index_reads.push((x.as_ptr() as usize, 4 * x.len()));
            index_reads.push((z.as_ptr() as usize, 4 * z.len()));
            index_reads.push((ids.as_ptr() as usize, 4 * ids.len()));
            index_reads.push((starts.as_ptr() as usize, 4 * starts.len()));
        }
        index_reads.retain(|&(_, n)| n > 0);
        let (mut u, mut ix) = (Vec::new(), Vec::new());
        distinct_lines(&unit_reads, &mut u);
        distinct_lines(&index_reads, &mut ix);
        let extra = ix.iter().filter(|l| u.binary_search(l).is_err()).count();
        let ws = WorkingSet {
            unit_bytes: (u.len() * LINE) as u64,
            index_bytes: (extra * LINE) as u64,
        };
        (ws, u, ix)
    }

    fn stepped(layout: Layout, strategy: Strategy, reorder: Reorder, units: usize) -> Simulation {
        let s = Settings {
            units,
            layout,
            reorder,
            strategy,
            ..Settings::default()
        };
        let mut sim = Simulation::new(&s);
        sim.step(1.0 / 60.0, &s);
        sim
    }

    #[test]
    fn working_set_matches_the_distinct_lines_of_every_read() {
        for layout in Layout::ALL {
            for strategy in Strategy::ALL {
                for reorder in [Reorder::Off, Reorder::Resident] {
                    let sim = stepped(layout, strategy, reorder, 2_000);
                    let ws = working_set(&sim);
                    let (want, _, _) = brute_force(&sim);
                    let what = format!("{layout:?} {strategy:?} {reorder:?}");
                    assert_eq!(ws, want, "{what}");
                    assert!(ws.unit_bytes >= 2_000 * 8, "{what}: {ws:?}");
                    assert_eq!(ws.total(), ws.unit_bytes + ws.index_bytes);
                    if strategy == Strategy::Naive {
                        assert_eq!(ws.index_bytes, 0, "{what}");
                    } else {
                        assert!(ws.index_bytes > 0, "{what}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_querys_reads_are_inside_the_working_set() {
        let mut trace = QueryTrace::default();
        for layout in [Layout::AosPointers, Layout::Soa] {
            for strategy in [Strategy::Grid, Strategy::SortedGrid] {
                let sim = stepped(layout, strategy, Reorder::Resident, 2_000);
                let (_, units, index) = brute_force(&sim);
                let (mut unit_reads, mut index_reads) = (Vec::new(), Vec::new());
                for i in 0..sim.len() {
                    trace_query(&sim, i, Settings::default().radius, &mut trace);
                    unit_reads.extend_from_slice(&trace.unit_reads);
                    index_reads.extend_from_slice(&trace.index_reads);
                }
                let (mut tu, mut ti) = (Vec::new(), Vec::new());
                distinct_lines(&unit_reads, &mut tu);
                distinct_lines(&index_reads, &mut ti);
                assert_eq!(tu, units, "{layout:?} {strategy:?}: every unit is read");
                for l in ti {
                    assert!(
                        index.binary_search(&l).is_ok() || units.binary_search(&l).is_ok(),
                        "{layout:?} {strategy:?}: line {l:#x} outside the working set"
                    );
                }
            }
        }
    }

    #[test]
    fn working_set_follows_the_layout_and_the_order() {
        let unit = |layout| working_set(&stepped(layout, Strategy::Grid, Reorder::Off, 2_000));
        let (soa, aos, ptrs) = (
            unit(Layout::Soa),
            unit(Layout::Aos),
            unit(Layout::AosPointers),
        );
        assert!(soa.unit_bytes < aos.unit_bytes, "{soa:?} {aos:?}");
        assert!(aos.unit_bytes < ptrs.unit_bytes, "{aos:?} {ptrs:?}");
        // SoA reads x and z only: 8 bytes per unit, packed (each array's
        // ends may share a line with something else: up to 2 more lines).
        let (packed, edges) = (2_000 * 8, 2 * LINE as u64);
        assert!(soa.unit_bytes.abs_diff(packed) <= edges, "{soa:?}");
        let hot_cold = unit(Layout::HotCold);
        assert!(
            hot_cold.unit_bytes.abs_diff(packed) <= edges,
            "{hot_cold:?}"
        );
        // Resident: the CSR x and z are the units' arrays, counted once.
        let sorted =
            |reorder| working_set(&stepped(Layout::Soa, Strategy::SortedGrid, reorder, 2_000));
        let (own, resident) = (sorted(Reorder::Off), sorted(Reorder::Resident));
        assert!(own.unit_bytes.abs_diff(resident.unit_bytes) <= edges);
        // The resident index saves its own x and z: 8 bytes per unit.
        assert!(
            resident.index_bytes + packed <= own.index_bytes + edges,
            "{resident:?} {own:?}"
        );
    }

    #[test]
    fn working_set_before_any_step_counts_the_storage() {
        for layout in Layout::ALL {
            for strategy in Strategy::ALL {
                let s = Settings {
                    units: 500,
                    layout,
                    strategy,
                    ..Settings::default()
                };
                let sim = Simulation::new(&s);
                let ws = working_set(&sim);
                assert_eq!(ws, brute_force(&sim).0, "{layout:?} {strategy:?}");
                assert!(ws.unit_bytes > 0);
            }
        }
        let empty = Simulation::new(&Settings {
            units: 0,
            ..Settings::default()
        });
        assert_eq!(working_set(&empty), WorkingSet::default());
    }

    #[test]
    fn line_sets_match_distinct_lines_on_random_reads() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(19);
        let regions = [
            Region {
                name: "a",
                start: 1 << 20,
                bytes: 1 << 16,
            },
            Region {
                name: "b",
                start: (1 << 20) + (1 << 16) + 100,
                bytes: 5_000,
            },
            Region {
                name: "c",
                // Far from the others, and within a 32-bit usize (wasm32).
                start: 1 << 30,
                bytes: 1 << 12,
            },
        ];
        let mut scratch = Vec::new();
        for case in 0..300 {
            let mut set = LineSet::new(regions.iter());
            let mut all = Vec::new();
            // Slots carry over from run to run, as from block to block.
            let mut slots = vec![Slot::default(); rng.gen_range(1..4)];
            for _ in 0..rng.gen_range(1..6) {
                // Ascending strided runs (dense or not), scattered reads, reads
                // across a region's end and outside every region.
                let base = match rng.gen_range(0..4) {
                    0 => regions[0].start + rng.gen_range(0..1 << 16),
                    1 => regions[1].start + rng.gen_range(0..6_000),
                    2 => regions[2].start - 200 + rng.gen_range(0..5_000),
                    _ => rng.gen_range(0..1 << 24),
                };
                let (stride, len) = (rng.gen_range(0..200), rng.gen_range(0..100));
                let mut run: Vec<(usize, usize)> = (0..rng.gen_range(0..50))
                    .map(|j| (base + j * stride, len))
                    .collect();
                if rng.gen_bool(0.3) {
                    run.reverse();
                }
                set.add_reads(&run, &mut slots);
                all.extend(run.into_iter().filter(|r| r.1 > 0));
            }
            assert_eq!(
                set.count(),
                distinct_lines(&all, &mut scratch),
                "case {case}"
            );
        }
    }

    #[test]
    fn set_bits_sets_exactly_the_range() {
        for (lo, hi) in [
            (0, 0),
            (0, 1),
            (3, 64),
            (0, 64),
            (63, 65),
            (5, 200),
            (64, 128),
        ] {
            let mut bits = vec![0u64; 4];
            set_bits(&mut bits, lo, hi);
            for l in 0..256 {
                let set = bits[l / 64] >> (l % 64) & 1 == 1;
                assert_eq!(set, (lo..hi).contains(&l), "{lo}..{hi}: bit {l}");
            }
        }
    }

    #[test]
    fn line_sets_count_lines_across_and_outside_spans() {
        let regions = [
            Region {
                name: "a",
                start: 64 * 100,
                bytes: 64 * 10,
            },
            Region {
                name: "b",
                start: 64 * 1_000_000,
                bytes: 64 * 10,
            },
        ];
        let mut set = LineSet::new(regions.iter());
        let h = &mut 7; // a hint out of range is only a miss
        set.add(h, 64 * 100, 4);
        set.add(h, 64 * 100 + 60, 8); // two lines, one already marked
        set.add(h, 64 * 109, 128); // across the span's end
        set.add(h, 64 * 5_000_000, 1); // outside every span
        set.add(h, 64 * 5_000_000 + 8, 1);
        set.add(h, 64 * 1_000_005, 0); // nothing
        assert_eq!(set.count(), 2 + 2 + 1);
        set.add(h, 64 * 110, 64);
        set.add(h, 64 * 1_000_001, 64);
        assert_eq!(*h, 1, "left at the span found");
        assert_eq!(set.count(), 6);
    }
}
