//! The query inspector: what the query of one unit did in the last step —
//! the block of cells it searched, every unit it ran through the distance
//! test (the candidates) and the ones it found (the neighbors).
//!
//! Read from the spatial index of the last step without changing it, so the
//! window can show, for the selected unit, why a strategy tests what it tests.

use super::Simulation;
use crate::engine::spatial::{Block, GridGeometry, Kernel, Query};

/// A searched block of cells and the grid it is relative to (see
/// [`GridGeometry::block`]).
pub type SearchedBlock = (GridGeometry, Block);

/// What the query of one unit searched, tested and found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspection {
    /// The cells searched, for the grid strategies; `None` for Naive (no
    /// cells) and when the query returns nothing (non-finite position, or a
    /// block that misses the grid).
    pub block: Option<SearchedBlock>,
    /// Storage indices of every unit run through the distance test, the
    /// queried unit included (it is tested, then excluded by index): the
    /// units of the searched cells, row by row and within a row in the
    /// index's order, for Grid and SortedGrid; every unit, ascending, for
    /// Naive. Its length is the query's candidate count.
    pub candidates: Vec<u32>,
    /// Storage indices of the units found (unspecified order): the same set
    /// as `sim.results().neighbors(i)` after a collect step (a fused step
    /// keeps only their count, [`Simulation::neighbor_count`]).
    pub neighbors: Vec<u32>,
}

impl Inspection {
    /// Empties the lists and the block, keeping the lists' capacity.
    pub fn clear(&mut self) {
        self.block = None;
        self.candidates.clear();
        self.neighbors.clear();
    }

    /// Refills `self` with the inspection of unit `i` (a storage index)
    /// queried with radius `r` (world units) against the index of the last
    /// step; see [`inspect`]. Reuses the lists' capacity, so a steady state
    /// does not allocate. Leaves `self` empty when `i >= sim.len()`.
    pub fn fill(&mut self, sim: &Simulation, i: usize, r: f32) {
        self.clear();
        if i >= sim.len() {
            return;
        }
        let (cx, cz) = sim.store().pos(i);
        let q = Query {
            cx,
            cz,
            r,
            exclude: i as u32,
        };
        // Every kernel returns the same set; the scalar one always runs.
        let stats = sim.query(&q, Kernel::Scalar, &mut self.neighbors);
        if let Some(g) = sim.uniform_grid() {
            let geo =
                *crate::engine::spatial::SpatialIndex::geometry(g).expect("a grid has a geometry");
            if let Some((_, b)) = geo.search(&q) {
                for c in g.block_cells(b) {
                    self.candidates.extend_from_slice(c);
                }
                self.block = Some((geo, b));
            }
        } else if let Some(g) = sim.sorted_grid() {
            let geo =
                *crate::engine::spatial::SpatialIndex::geometry(g).expect("a grid has a geometry");
            if let Some((_, b)) = geo.search(&q) {
                let (starts, (_, _, ids)) = (g.cell_start(), g.sorted(sim.index_points()));
                for (first, end) in g.block_rows(b) {
                    let (a, e) = (starts[first] as usize, starts[end] as usize);
                    self.candidates.extend_from_slice(&ids[a..e]);
                }
                self.block = Some((geo, b));
            }
        } else if q.kernel_query().is_some() {
            // Naive: every unit is tested.
            self.candidates.extend(0..sim.len() as u32);
        }
        debug_assert_eq!(stats.candidates, self.candidates.len() as u64);
    }
}

/// What the query of unit `i` (a storage index) with radius `r` (world units,
/// center at the unit's position, excluding the unit itself) searched, tested
/// and found against the spatial index of the last step.
///
/// The neighbors are the same set as `sim.results().neighbors(i)` (after a
/// collect step; a fused step keeps only their count) when `r` is
/// the radius of that step; the candidates are read from the index (the
/// searched cells of Grid and SortedGrid; every unit for Naive). Returns an
/// empty inspection when `i >= sim.len()`. Allocates the two lists (use
/// [`Inspection::fill`] to reuse them).
pub fn inspect(sim: &Simulation, i: usize, r: f32) -> Inspection {
    let mut out = Inspection::default();
    out.fill(sim, i, r);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sim::{Reorder, Settings, Workload};
    use crate::engine::spatial::Strategy;
    use std::collections::HashSet;

    fn settings(strategy: Strategy, cell_size: f32) -> Settings {
        Settings {
            units: 3_000,
            workload: Workload::Clustered,
            seed: 7,
            strategy,
            kernel: Kernel::Scalar,
            cell_size,
            cell_follows_radius: false,
            reorder: Reorder::Cells,
            reorder_every: 2,
            // The lists of the collect pass are what the inspector is checked against.
            pass: crate::engine::sim::Pass::Collect,
            ..Settings::default()
        }
    }

    fn set(v: &[u32]) -> HashSet<u32> {
        let s: HashSet<u32> = v.iter().copied().collect();
        assert_eq!(s.len(), v.len(), "a list holds a unit twice");
        s
    }

    #[test]
    fn neighbors_equal_the_step_results_for_every_strategy() {
        for strategy in Strategy::ALL {
            for cell in [10.0, 3.5] {
                let s = settings(strategy, cell);
                let mut sim = Simulation::new(&s);
                let mut insp = Inspection::default();
                for _ in 0..3 {
                    sim.step(0.05, &s);
                    for i in 0..sim.len() {
                        insp.fill(&sim, i, s.radius);
                        let found = set(&insp.neighbors);
                        assert_eq!(
                            found,
                            set(sim.results().neighbors(i)),
                            "{strategy:?}, cell {cell}, unit {i}"
                        );
                        let tested = set(&insp.candidates);
                        assert!(
                            found.is_subset(&tested),
                            "{strategy:?}: a neighbor was not tested"
                        );
                        assert!(!found.contains(&(i as u32)), "self is excluded");
                        match strategy {
                            Strategy::Naive => {
                                assert_eq!(insp.candidates.len(), sim.len());
                                assert!(insp.block.is_none());
                            }
                            _ => {
                                assert!(
                                    tested.contains(&(i as u32)),
                                    "the unit's own cell is searched"
                                );
                                if i % 17 != 0 {
                                    continue;
                                }
                                let (geo, Block { x0, x1, z0, z1 }) =
                                    insp.block.expect("a grid block");
                                assert!(x0 <= x1 && x1 < geo.nx && z0 <= z1 && z1 < geo.nz);
                                // Every candidate lies in the block, and every unit in the block is a candidate.
                                for j in 0..sim.len() {
                                    let (x, z) = sim.store().pos(j);
                                    let k = geo.cell_of(x, z).expect("finite");
                                    let (cx, cz) = (k % geo.nx, k / geo.nx);
                                    let inside = (x0..=x1).contains(&cx) && (z0..=z1).contains(&cz);
                                    assert_eq!(inside, tested.contains(&(j as u32)), "unit {j}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn candidate_counts_match_the_step_counters() {
        for strategy in Strategy::ALL {
            let s = settings(strategy, 10.0);
            let mut sim = Simulation::new(&s);
            let st = sim.step(0.05, &s);
            let mut insp = Inspection::default();
            let (mut candidates, mut neighbors) = (0u64, 0u64);
            for i in 0..sim.len() {
                insp.fill(&sim, i, s.radius);
                candidates += insp.candidates.len() as u64;
                neighbors += insp.neighbors.len() as u64;
            }
            assert_eq!(candidates, st.query.candidates, "{strategy:?}");
            assert_eq!(neighbors, st.query.neighbors, "{strategy:?}");
        }
    }

    #[test]
    fn an_index_past_the_end_gives_an_empty_inspection() {
        let s = settings(Strategy::Grid, 10.0);
        let mut sim = Simulation::new(&s);
        sim.step(0.05, &s);
        let insp = inspect(&sim, sim.len(), s.radius);
        assert_eq!(insp, Inspection::default());
    }
}
