//! The reference strategy: every query scans every unit. Every other strategy
//! and kernel is tested against it.

use super::{Kernel, Points, Query, QueryStats, Span, SpatialIndex};

/// Scans all units per query: O(N) per query, O(N^2) for the per-unit pass.
///
/// The scan runs the chosen kernel over the whole SoA position arrays, so
/// `Naive` + a SIMD kernel shows what SIMD alone buys without a spatial index.
#[derive(Clone, Debug, Default)]
pub struct Naive {
    /// `ids[i] == i`; grown on rebuild, never shrunk.
    ids: Vec<u32>,
    len: usize,
}

impl SpatialIndex for Naive {
    fn rebuild(&mut self, points: Points<'_>, _cell_size: f32) {
        let n = points.len();
        if self.ids.len() < n {
            let old = self.ids.len() as u32;
            self.ids.extend(old..n as u32);
        }
        self.len = n;
    }

    fn query(
        &self,
        points: Points<'_>,
        q: &Query,
        kernel: Kernel,
        out: &mut Vec<u32>,
    ) -> QueryStats {
        let Some(kq) = q.kernel_query() else {
            return QueryStats::default();
        };
        let n = self.len.min(points.len());
        let before = out.len();
        kernel.run(
            Span::new(&points.x[..n], &points.z[..n], &self.ids[..n]),
            &kq,
            out,
        );
        QueryStats {
            candidates: n as u64,
            neighbors: (out.len() - before) as u64,
        }
    }
}
