//! How the per-unit pass hands its results to the apply step: neighbor id
//! lists (collect) or aggregates summed in the kernel (fused).

use crate::engine::spatial::Near;

/// How the per-unit pass hands its results to the apply step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Every query appends its neighbor ids to per-chunk lists (CSR), and the
    /// apply step reads them back: the whole frame's lists are materialized.
    Collect,
    /// The kernel sums what the steering needs ([`Near`]: count, enemies,
    /// offset sums) while testing; no id is written (the CSR grid's fused
    /// kernel; the other strategies aggregate each query's list at once).
    #[default]
    Fused,
}

crate::named! { Pass {
    Collect => "collect", "collect ids";
    Fused => "fused", "fused";
} }

impl Pass {
    /// Whether the pass writes aggregates rather than neighbor lists.
    pub fn is_fused(self) -> bool {
        self != Pass::Collect
    }

    /// One-sentence explanation for tooltips and help.
    pub fn explain(self) -> &'static str {
        match self {
            Pass::Collect => "Every query writes its neighbor ids into lists for the whole frame (4 bytes per neighbor plus 4 per unit), and the apply step reads them back, fetching each neighbor's position again.",
            Pass::Fused => "The kernel sums what steering needs (neighbor count, enemies, offset sums) while it tests candidates: no neighbor list is written or read back, 24 bytes per unit.",
        }
    }

    /// Bytes of per-frame results for `units` units with `neighbors` pairs:
    /// collect = 4 per id + 4 per offset; fused = one [`Near`] per unit.
    pub fn result_bytes(self, units: usize, neighbors: u64) -> u64 {
        match self {
            Pass::Collect => neighbors * 4 + units as u64 * 4,
            Pass::Fused => units as u64 * std::mem::size_of::<Near>() as u64,
        }
    }
}
