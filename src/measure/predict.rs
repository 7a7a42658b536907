//! Estimates of a frame's time before it runs, for a plan's guards
//! ([`crate::measure::Plan::with_predictor`]): the naive scan scaled by `N²`
//! from a smaller measured run or from the naive cost model, and a grid
//! whose query block covers much of the world predicted like the naive
//! scan it has become.

use std::sync::{Arc, Mutex};

use crate::engine::sim::{Settings, Workload};
use crate::engine::spatial::Strategy;
use crate::format::thousands;
use crate::measure::{Estimate, Outcome, Predictor};
use crate::settings::budget::NaiveCost;

/// Above this fraction of the world under one query's block, a grid's
/// frame is predicted ([`naive_predictor`]); below it (every sensible cell
/// size) the guards wait for a first measured frame.
const GRID_PREDICTED_ABOVE: f64 = 0.05;

/// The fraction of the world one query's block of cells covers, for units
/// spread uniformly: per axis the block spans `min(ceil(2r / c) + 1, cells)`
/// of the grid's `ceil(L / c)` cells (the cell raised to what the grid's
/// cap allows), squared. 1 for a one-cell grid.
fn block_fraction(s: &Settings) -> f64 {
    let world = f64::from(s.world_edge());
    let cell = f64::from(
        s.cell_size
            .max(crate::engine::spatial::min_cell_for_extent(s.world_edge())),
    );
    if !(cell > 0.0 && world > 0.0) {
        return 0.0;
    }
    let cells = (world / cell).ceil().max(1.0);
    let block = ((2.0 * f64::from(s.radius) / cell).ceil() + 1.0).min(cells);
    (block / cells).powi(2)
}

/// Predicts a naive frame's seconds, and a grid's where its block covers
/// over `GRID_PREDICTED_ABOVE` (5%) of the world (other grids: no prediction,
/// so only a first frame measured too slow trips the guards): from the largest
/// naive run of the same kernel, layout, threads, order, pass and workload
/// measured earlier in the plan with fewer units, scaled by `N^2`; else from
/// [`NaiveCost`]'s model (a small sample's cost per pair test, measured on
/// first use). When both exist the note names both, so a model that
/// disagrees with the scaling is visible.
pub fn naive_predictor(seed: u64, workload: Workload) -> Predictor {
    let cost = Mutex::new(NaiveCost::default());
    Arc::new(move |s: &Settings, outcomes: &[Outcome]| {
        if s.strategy != Strategy::Naive {
            // A grid whose block covers much of the world (one cell, a huge
            // radius) tests nearly every pair: predicted like the naive scan
            // it has become, so the guards skip it instead of running it.
            let fraction = block_fraction(s);
            if fraction < GRID_PREDICTED_ABOVE {
                return None;
            }
            let mut c = cost.lock().unwrap_or_else(|e| e.into_inner());
            let kernel = s.kernel.or_scalar();
            c.get_or_measure(kernel, s.layout, seed, workload);
            let naive = c.frame_seconds(kernel, s.layout, s.units, s.threads)?;
            return Some(Estimate {
                seconds: naive * fraction,
                how: format!(
                    "a query's block covers {:.0}% of the world, so about {} candidates per query at the naive scan's cost per test (uniform units)",
                    fraction * 100.0,
                    thousands((fraction * s.units as f64) as u64)
                ),
            });
        }
        let scaled = outcomes
            .iter()
            .filter_map(Outcome::measured)
            .filter(|m| {
                let o = &m.settings;
                o.strategy == Strategy::Naive
                    && (o.kernel, o.layout, o.threads, o.reorder, o.pass, o.workload)
                        == (s.kernel, s.layout, s.threads, s.reorder, s.pass, s.workload)
                    && o.units < s.units
                    && m.frames > 0
            })
            .max_by_key(|m| m.settings.units)
            .map(|m| {
                let k = s.units as f64 / m.settings.units as f64;
                Estimate {
                    seconds: m.ms.total.median * 1e-3 * k * k,
                    how: format!(
                        "N² from the measured {}-unit run",
                        thousands(m.settings.units as u64)
                    ),
                }
            });
        let model = {
            let mut c = cost.lock().unwrap_or_else(|e| e.into_inner());
            c.get_or_measure(s.kernel, s.layout, seed, workload);
            c.frame_seconds(s.kernel, s.layout, s.units, s.threads)
        };
        match (scaled, model) {
            (Some(e), Some(m)) => Some(Estimate {
                how: format!("{}; the naive cost model said {:.2} s", e.how, m),
                ..e
            }),
            (Some(e), None) => Some(e),
            (None, Some(m)) => Some(Estimate {
                seconds: m,
                how: "naive cost model, not checked against a measured run".to_string(),
            }),
            (None, None) => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_block_covering_the_world_is_a_naive_scan() {
        let s = |cell: f32, radius: f32| Settings {
            strategy: Strategy::Grid,
            units: 1_000_000,
            world: Some(1_000_000.0),
            cell_size: cell,
            radius,
            ..Settings::default()
        };
        assert_eq!(block_fraction(&s(1_000_000.0, 10.0)), 1.0);
        assert!(
            block_fraction(&s(10.0, 10.0)) < 1e-5,
            "raised to the cell cap: 2 of 1022 cells per axis"
        );
        assert!(block_fraction(&s(10.0, 400_000.0)) > 0.5);
    }
}
