//! The simulation's spatial index, one concrete type per strategy.

use crate::engine::spatial::{Naive, SortedGrid, SpatialIndex, Strategy, UniformGrid};

/// The spatial index of the simulation, concrete so the per-unit pass is
/// monomorphized per strategy and layout.
#[derive(Debug)]
pub(super) enum Index {
    Naive(Naive),
    Grid(UniformGrid),
    /// Boxed: the CSR grid holds many buffers, the other indexes few.
    Sorted(Box<SortedGrid>),
}

impl Index {
    pub(super) fn new(s: Strategy) -> Index {
        match s {
            Strategy::Naive => Index::Naive(Naive::default()),
            Strategy::Grid => Index::Grid(UniformGrid::default()),
            Strategy::SortedGrid => Index::Sorted(Box::default()),
        }
    }

    pub(super) fn strategy(&self) -> Strategy {
        match self {
            Index::Naive(_) => Strategy::Naive,
            Index::Grid(_) => Strategy::Grid,
            Index::Sorted(_) => Strategy::SortedGrid,
        }
    }

    pub(super) fn as_dyn(&self) -> &dyn SpatialIndex {
        match self {
            Index::Naive(i) => i,
            Index::Grid(i) => i,
            Index::Sorted(i) => &**i,
        }
    }
}
