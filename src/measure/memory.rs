//! The memory a query touches: which bytes of the units' storage and of the
//! spatial index one query reads, counted in 64-byte cache lines. Drives the
//! window's memory view; computed from the real addresses of the current
//! layout and index, not from a model.

use crate::engine::sim::layout::Region;
use crate::engine::sim::Simulation;
use crate::engine::spatial::Query;

pub mod address_map;
pub mod cache_model;
pub mod modeled;
mod working_set;
pub use working_set::{working_set, WorkingSet};

/// The name of the region [`index_regions`] gives for the uniform grid's
/// cell buffers: the span from the lowest to the highest, other
/// allocations between them included.
pub const CELL_BUFFERS_SPAN: &str = "cell id buffers (heap span)";

/// Bytes per cache line on every x86-64 and most ARM cores.
pub const LINE: usize = 64;

/// The reads one query makes, as `(address, bytes)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryTrace {
    /// Reads of the units' storage (positions through the layout).
    pub unit_reads: Vec<(usize, usize)>,
    /// Reads of the spatial index's own storage (cell lists, CSR offsets,
    /// the CSR grid's packed copies).
    pub index_reads: Vec<(usize, usize)>,
    /// Candidates the query tested.
    pub candidates: usize,
}

/// The memory of the spatial index, one region per array (empty for the
/// naive scan). Allocates the returned `Vec`.
pub fn index_regions(sim: &Simulation) -> Vec<Region> {
    fn r<T>(name: &'static str, v: &[T]) -> Region {
        Region {
            name,
            start: v.as_ptr() as usize,
            bytes: std::mem::size_of_val(v),
        }
    }
    if let Some(g) = sim.uniform_grid() {
        let cells = g.cells();
        let mut out = vec![r("cell Vec headers", cells)];
        let (lo, hi) =
            cells
                .iter()
                .filter(|c| c.capacity() > 0)
                .fold((usize::MAX, 0), |(lo, hi), c| {
                    let a = c.as_ptr() as usize;
                    (lo.min(a), hi.max(a + 4 * c.capacity()))
                });
        if hi > lo {
            out.push(Region {
                name: CELL_BUFFERS_SPAN,
                start: lo,
                bytes: hi - lo,
            });
        }
        out
    } else if let Some(g) = sim.sorted_grid() {
        let (x, z, ids) = g.sorted(sim.index_points());
        vec![
            r("CSR x (cell order)", x),
            r("CSR z (cell order)", z),
            r("CSR ids", ids),
            r("CSR cell offsets", g.cell_start()),
        ]
    } else {
        Vec::new()
    }
}

/// Records into `out` (cleared first) every read the query of the unit
/// stored at `i` (center = its position, radius `r`, itself excluded) makes
/// in the current layout and index: the center, then per searched cell the
/// index's entries and, for the naive scan and the per-cell grid, every
/// candidate's position through the layout. The CSR grid reads candidates
/// from its packed copy (index reads). Allocates only while `out` grows.
///
/// # Panics
/// If `i >= sim.len()`.
pub fn trace_query(sim: &Simulation, i: usize, r: f32, out: &mut QueryTrace) {
    out.unit_reads.clear();
    out.index_reads.clear();
    out.candidates = 0;
    let store = sim.store();
    store.position_reads(i, &mut out.unit_reads);
    let (cx, cz) = store.pos(i);
    let q = Query {
        exclude: i as u32,
        ..Query::new(cx, cz, r)
    };
    if let Some(g) = sim.uniform_grid() {
        let geo = sim.index().geometry().copied().unwrap_or_default();
        let Some((_, block)) = geo.search(&q) else {
            return;
        };
        for c in g.block_cells(block) {
            out.index_reads
                .push((std::ptr::from_ref(c) as usize, std::mem::size_of_val(c)));
            if !c.is_empty() {
                out.index_reads.push((c.as_ptr() as usize, 4 * c.len()));
            }
            for &j in c {
                store.position_reads(j as usize, &mut out.unit_reads);
            }
            out.candidates += c.len();
        }
    } else if let Some(g) = sim.sorted_grid() {
        let geo = sim.index().geometry().copied().unwrap_or_default();
        let Some((_, block)) = geo.search(&q) else {
            return;
        };
        let starts = g.cell_start();
        let (x, z, ids) = g.sorted(sim.index_points());
        for (ka, ke) in g.block_rows(block) {
            out.index_reads
                .push((std::ptr::from_ref(&starts[ka]) as usize, 4));
            out.index_reads
                .push((std::ptr::from_ref(&starts[ke]) as usize, 4));
            let (a, e) = (starts[ka] as usize, starts[ke] as usize);
            if e > a {
                for v in [&x[a..e], &z[a..e]] {
                    out.index_reads.push((v.as_ptr() as usize, 4 * (e - a)));
                }
                out.index_reads
                    .push((ids[a..e].as_ptr() as usize, 4 * (e - a)));
            }
            out.candidates += e - a;
        }
    } else {
        for j in 0..store.len() {
            store.position_reads(j, &mut out.unit_reads);
        }
        out.candidates = store.len();
    }
}

/// Appends the cache line (`address / LINE`) of every byte of `reads` to
/// `lines`, then sorts and dedups it; returns how many distinct lines.
pub fn distinct_lines(reads: &[(usize, usize)], lines: &mut Vec<usize>) -> usize {
    lines.clear();
    for &(a, n) in reads {
        let (first, last) = (a / LINE, (a + n.max(1) - 1) / LINE);
        lines.extend(first..=last);
    }
    lines.sort_unstable();
    lines.dedup();
    lines.len()
}

/// Distinct cache lines touched per query, for the memory view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LineCounts {
    /// Lines of the units' storage.
    pub unit: f64,
    /// Lines of the index's storage.
    pub index: f64,
    /// Candidates tested.
    pub candidates: f64,
}

/// One query's [`LineCounts`].
pub fn count_lines(t: &QueryTrace, scratch: &mut Vec<usize>) -> LineCounts {
    LineCounts {
        unit: distinct_lines(&t.unit_reads, scratch) as f64,
        index: distinct_lines(&t.index_reads, scratch) as f64,
        candidates: t.candidates as f64,
    }
}

/// The mean [`LineCounts`] over `samples` queries of units spread evenly
/// over storage (every `len / samples`-th unit; all units when fewer), radius
/// `r`. Zero counts for an empty world. Allocates its scratch buffers.
pub fn mean_lines(sim: &Simulation, r: f32, samples: usize) -> LineCounts {
    let n = sim.len();
    if n == 0 || samples == 0 {
        return LineCounts::default();
    }
    let step = (n / samples).max(1);
    let (mut trace, mut scratch) = (QueryTrace::default(), Vec::new());
    let mut sum = LineCounts::default();
    let mut k = 0.0;
    for i in (0..n).step_by(step).take(samples) {
        trace_query(sim, i, r, &mut trace);
        let c = count_lines(&trace, &mut scratch);
        sum.unit += c.unit;
        sum.index += c.index;
        sum.candidates += c.candidates;
        k += 1.0;
    }
    LineCounts {
        unit: sum.unit / k,
        index: sum.index / k,
        candidates: sum.candidates / k,
    }
}

/// A region of memory drawn as a raster of `buckets` cells (each covering
/// `lines_per_bucket` cache lines), with the buckets the traced query
/// touched marked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionStrip {
    /// What the region holds.
    pub name: &'static str,
    /// Size, bytes.
    pub bytes: usize,
    /// Cache lines per bucket (>= 1).
    pub lines_per_bucket: usize,
    /// One flag per bucket: touched by the query.
    pub touched: Vec<bool>,
}

/// Maps `reads` onto `regions`, each split into at most `max_buckets`
/// buckets of whole cache lines. Reads outside every region are ignored.
pub fn strips(
    regions: &[Region],
    reads: &[(usize, usize)],
    max_buckets: usize,
) -> Vec<RegionStrip> {
    regions
        .iter()
        .map(|reg| {
            let base = reg.start / LINE;
            let lines = (reg.start + reg.bytes.max(1) - 1) / LINE - base + 1;
            let per = lines.div_ceil(max_buckets.max(1)).max(1);
            let mut touched = vec![false; lines.div_ceil(per)];
            for &(a, n) in reads {
                if a >= reg.start && a < reg.start + reg.bytes {
                    for line in a / LINE..=(a + n.max(1) - 1) / LINE {
                        if let Some(t) = touched.get_mut((line - base) / per) {
                            *t = true;
                        }
                    }
                }
            }
            RegionStrip {
                name: reg.name,
                bytes: reg.bytes,
                lines_per_bucket: per,
                touched,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{Layout, Reorder, Settings};
    use crate::engine::spatial::Strategy;

    #[test]
    fn distinct_lines_counts_each_64_byte_line_once() {
        let mut s = Vec::new();
        assert_eq!(distinct_lines(&[], &mut s), 0);
        assert_eq!(distinct_lines(&[(0, 4), (60, 4)], &mut s), 1);
        assert_eq!(distinct_lines(&[(62, 4)], &mut s), 2, "straddles a line");
        assert_eq!(distinct_lines(&[(0, 8), (640, 8), (4, 4)], &mut s), 2);
    }

    #[test]
    fn strips_mark_the_bucket_of_each_read() {
        let reg = [Region {
            name: "a",
            start: 1024,
            bytes: 64 * 100,
        }];
        let s = strips(&reg, &[(1024, 4), (1024 + 64 * 99, 4), (5, 4)], 10);
        assert_eq!(s[0].lines_per_bucket, 10);
        assert_eq!(s[0].touched.len(), 10);
        let lit: Vec<usize> = (0..10).filter(|&k| s[0].touched[k]).collect();
        assert_eq!(lit, vec![0, 9]);
    }

    fn lines_for(layout: Layout, reorder: Reorder, strategy: Strategy) -> LineCounts {
        let s = Settings {
            units: 20_000,
            layout,
            reorder,
            strategy,
            ..Settings::default()
        };
        let mut sim = Simulation::new(&s);
        sim.step(1.0 / 60.0, &s);
        mean_lines(&sim, s.radius, 200)
    }

    #[test]
    fn soa_in_cell_order_touches_far_fewer_lines_than_scattered_objects() {
        let ptrs = lines_for(Layout::AosPointers, Reorder::Cells, Strategy::Grid);
        let aos = lines_for(Layout::Aos, Reorder::Cells, Strategy::Grid);
        let soa_off = lines_for(Layout::Soa, Reorder::Off, Strategy::Grid);
        let soa = lines_for(Layout::Soa, Reorder::Cells, Strategy::Grid);
        assert_eq!(ptrs.candidates, soa.candidates, "same queries");
        // A scattered object per candidate, plus the pointers.
        assert!(ptrs.unit > ptrs.candidates, "{ptrs:?}");
        // AoS: about one line per candidate; SoA in cell order: 16 units per line.
        assert!(aos.unit < ptrs.unit, "{aos:?} vs {ptrs:?}");
        assert!(soa.unit * 3.0 < aos.unit, "{soa:?} vs {aos:?}");
        assert!(
            soa.unit * 3.0 < soa_off.unit,
            "{soa:?} vs spawn order {soa_off:?}"
        );
        // The CSR grid reads its packed copy: few index lines, one unit line (the center).
        let csr = lines_for(Layout::AosPointers, Reorder::Off, Strategy::SortedGrid);
        assert!(csr.unit <= 2.0, "{csr:?}");
        assert!(csr.index > 0.0 && csr.index < soa_off.unit, "{csr:?}");
    }
}
