//! The reference strategy: every query scans every unit. Every other strategy
//! and kernel is tested against it.

use super::results::per_unit;
use super::{
    ChunkResults, Kernel, KernelQuery, Points, Positions, Query, QueryStats, Span, SpatialIndex,
};

/// Scans all units per query: O(N) per query, O(N^2) for the per-unit pass.
///
/// When the positions are dense arrays (SoA: [`Positions::soa`]) the scan runs
/// the chosen kernel over them, so `Naive` + a SIMD kernel shows what SIMD
/// alone buys without a spatial index. Through any other layout it reads one
/// unit at a time with the scalar test (the same IEEE operations as every
/// kernel), so the layout's memory traffic is what gets timed.
#[derive(Clone, Debug, Default)]
pub struct Naive {
    /// `ids[i] == i`; grown on rebuild, never shrunk.
    ids: Vec<u32>,
    len: usize,
}

// code:begin test-through
/// The scalar distance test of units `ids` (indices into `p`), read through a
/// layout one at a time: the steps of [`super::kernels::scalar`], so every
/// path returns identical sets, appended in the order of `ids`. Branch-free:
/// every id is written to `out`'s spare capacity and the length advances only
/// for a match, so the cost is the memory traffic, not mispredicted branches.
/// Reserves `ids.len()` more entries in `out`.
#[inline(always)]
pub(crate) fn test_through<P: Positions + ?Sized>(
    p: &P,
    ids: impl ExactSizeIterator<Item = u32>,
    q: &KernelQuery,
    out: &mut Vec<u32>,
) {
    out.reserve(ids.len());
    let len = out.len();
    let spare = &mut out.spare_capacity_mut()[..ids.len()];
    let mut k = 0;
    for j in ids {
        let (x, z) = p.pos(j as usize);
        let dx = x - q.cx;
        let dz = z - q.cz;
        let d2 = dx * dx + dz * dz;
        // k <= the number of ids seen so far < spare.len() for an honest
        // iterator; the bounds check on `spare[k]` keeps a dishonest one sound.
        spare[k].write(j);
        k += (d2 <= q.r2 && j != q.exclude) as usize;
    }
    // SAFETY: `reserve` made room for `ids.len()` entries; every accepted id
    // was written to spare slot `k` before `k` advanced past it, so the first
    // `k` spare slots are initialized (later writes land at the new `k` or
    // beyond).
    unsafe { out.set_len(len + k) };
}
// code:end test-through

impl Naive {
    /// Sizes the index for `n` units (nothing else to build).
    pub fn rebuild_len(&mut self, n: usize) {
        if self.ids.len() < n {
            let old = self.ids.len() as u32;
            self.ids.extend(old..n as u32);
        }
        self.len = n;
    }

    // code:begin naive-scan
    /// Appends the ids of the units of `p` within `q` (in ascending order) to
    /// `out`; see [`SpatialIndex::query`].
    pub fn query_in<P: Positions + ?Sized>(
        &self,
        p: &P,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        let Some(kq) = q.kernel_query() else {
            return QueryStats::default();
        };
        let n = self.len.min(p.len());
        let before = out.len();
        match p.soa() {
            Some(pts) => kernel.run(
                Span::new(&pts.x[..n], &pts.z[..n], &self.ids[..n]),
                &kq,
                out,
            ),
            None => test_through(p, 0..n as u32, &kq, out),
        }
        QueryStats {
            candidates: n as u64,
            neighbors: (out.len() - before) as u64,
        }
    }
    // code:end naive-scan

    /// The per-unit pass over `chunk`'s units, reading positions through `p`;
    /// see [`SpatialIndex::query_units`].
    pub fn query_units_in<P: Positions + ?Sized>(
        &self,
        p: &P,
        r: f32,
        kernel: Kernel,
        chunk: &mut ChunkResults,
    ) -> QueryStats {
        per_unit(p, r, chunk, |q, out| self.query_in(p, q, kernel, out))
    }
}

impl SpatialIndex for Naive {
    fn rebuild(&mut self, points: Points<'_>, _cell_size: f32) {
        self.rebuild_len(points.len());
    }

    fn query(
        &self,
        points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        self.query_in(&points, q, kernel, out)
    }
}
