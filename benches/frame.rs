//! Full frames (`Simulation::step`: move → rebuild → query every unit → apply)
//! of the standard workloads (`docs/workloads.md`: r = 10, cell = r, seed 42)
//! per strategy x kernel x thread count.
//!
//! Groups are `frame/<workload>/<units>`, ids `<strategy>/<kernel>/t<threads>`,
//! throughput in units per second. Each benchmark creates its simulation once
//! (on first use, so a name filter skips the setup of unselected benchmarks)
//! and steps it inside the timed loop: the world keeps moving between frames,
//! which is the workload. Before measuring, the first frame's neighbor-pair
//! count is checked against the other combinations of the same group (every
//! strategy, kernel and thread count must find the same pairs).
//!
//! Timed frames are always frames `W..W + F` after a spawn (W = 5, F = 60, the
//! standard window of `docs/workloads.md` and `spatial-query-lab bench`):
//! when a simulation reaches frame `W + F` it is respawned from the same seed
//! and stepped `W` frames untimed. Without this, a fast combination would step
//! thousands of frames during one benchmark while a slow one steps a few, and
//! units bouncing off the border would slowly change the world, so the
//! combinations of one group would measure different worlds. Steering is off
//! while timing (`bench_settings`), so `clustered` and `hotspot` keep their shape.
//!
//! What runs, to keep the whole file near 10 minutes on 2 cores:
//! - Naive only at 10,000 units (O(N^2)), with Scalar and the best kernel.
//! - Grid and SortedGrid with Scalar and [`Kernel::best`] at 10,000 and 100,000;
//!   SSE and AVX2 too at 100,000 `uniform`.
//! - 1,000,000 units: Grid and SortedGrid with the best kernel only.
//! - Threads 1 and 2 everywhere.
//!
//! Plus the `layout` group (every data layout with Grid and SortedGrid at
//! 100,000 units, spawn order and cell order) and the `battle` workload.
//!
//! 120 benchmarks on a CPU with AVX-512 (116 without: one kernel fewer at
//! 100,000 `uniform`): 80 on `uniform`, `clustered` and `hotspot` (about 7 minutes on
//! the 2-core development VM when measured), 24 on `battle` and 16 in the
//! `layout` group (about 2 minutes). The
//! hotspot disk grows with N (radius `3r * sqrt(N / 10,000)`), so at 1,000,000
//! units its 100,000 units find about 110 neighbors each, as at every size.
//!
//! Run: `cargo bench --bench frame` (filter: `cargo bench --bench frame -- frame/uniform/100000`).

// criterion_main! generates an undocumented `main`.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use spatial_query_lab::bench::{bench_settings, BenchConfig};
use spatial_query_lab::engine::sim::{Layout, Reorder, Simulation, Workload};
use spatial_query_lab::engine::spatial::{Kernel, Strategy};
use spatial_query_lab::measure::BENCH_DT;

const SIZES: [usize; 3] = [10_000, 100_000, 1_000_000];
const THREADS: [usize; 2] = [1, 2];

/// Kernels to run for `strategy` at `units` on `workload`, available ones only,
/// without duplicates (on a CPU without SIMD the best kernel is Scalar).
fn kernels(strategy: Strategy, workload: Workload, units: usize) -> Vec<Kernel> {
    let best = Kernel::best();
    let wanted: Vec<Kernel> = if units >= 1_000_000 {
        vec![best]
    } else if strategy != Strategy::Naive && workload == Workload::Uniform && units == 100_000 {
        Kernel::ALL.to_vec()
    } else {
        vec![Kernel::Scalar, best]
    };
    let mut out: Vec<Kernel> = Vec::new();
    for k in wanted {
        if k.is_available() && !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// Strategies to run at `units`.
fn strategies(units: usize) -> Vec<Strategy> {
    Strategy::ALL
        .into_iter()
        .filter(|&s| s != Strategy::Naive || units <= 10_000)
        .collect()
}

/// Adds one benchmark: a full frame of `strategy`/`kernel`/`threads`.
/// `group_pairs` holds the first-frame neighbor-pair count of the group's
/// first benchmark that ran; every later one must match it.
fn bench_one(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    workload: Workload,
    units: usize,
    (strategy, kernel, threads): (Strategy, Kernel, usize),
    variant: Option<(Layout, Reorder)>,
    group_pairs: &mut Option<(String, u64)>,
) {
    let (layout, reorder) = variant.unwrap_or_default();
    let cfg = BenchConfig {
        settings: spatial_query_lab::engine::sim::Settings {
            workload,
            ..spatial_query_lab::bench::bench_base()
        },
        ..BenchConfig::default()
    };
    let settings = bench_settings(strategy, kernel, threads, units, reorder, layout, &cfg);
    let id = if variant.is_none() {
        format!("{}/{}/t{}", strategy.key(), kernel.key(), threads)
    } else {
        format!(
            "{}/{}/{}/order-{}/t{}",
            layout.key(),
            strategy.key(),
            kernel.key(),
            reorder.key(),
            threads
        )
    };
    let (warmup, window_end) = (cfg.warmup as u64, (cfg.warmup + cfg.frames) as u64);
    let mut sim: Option<Simulation> = None;
    group.bench_function(id.as_str(), |b| {
        let sim = sim.get_or_insert_with(|| {
            let mut sim = Simulation::new(&settings);
            let pairs = sim.step(BENCH_DT, &settings).query.neighbors;
            match group_pairs {
                Some((first, want)) => assert_eq!(
                    pairs, *want,
                    "frame/{workload}/{units}/{id}: first-frame neighbor pairs differ from {first}"
                ),
                None => *group_pairs = Some((id.clone(), pairs)),
            }
            sim
        });
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                if sim.frame() >= window_end {
                    sim.respawn(&settings);
                }
                while sim.frame() < warmup {
                    sim.step(BENCH_DT, &settings);
                }
                let t = Instant::now();
                black_box(sim.step(BENCH_DT, &settings));
                timed += t.elapsed();
            }
            timed
        })
    });
}

fn frame(c: &mut Criterion) {
    for workload in Workload::ALL {
        for units in SIZES {
            let mut group = c.benchmark_group(format!("frame/{}/{}", workload.key(), units));
            common::configure(&mut group, units as u64);
            let mut group_pairs = None;
            for strategy in strategies(units) {
                for kernel in kernels(strategy, workload, units) {
                    for threads in THREADS {
                        bench_one(
                            &mut group,
                            workload,
                            units,
                            (strategy, kernel, threads),
                            None,
                            &mut group_pairs,
                        );
                    }
                }
            }
            group.finish();
        }
    }
}

/// The data-layout lesson: uniform, 100,000 units, one thread, Grid (reads
/// positions through the layout) and SortedGrid (its packed copy), each layout
/// in spawn order and in cell order. Group `layout/uniform/100000`, ids
/// `<layout>/<strategy>/<kernel>/order-<order>/t1`.
fn layouts(c: &mut Criterion) {
    let units = 100_000;
    let mut group = c.benchmark_group(format!("layout/uniform/{units}"));
    common::configure(&mut group, units as u64);
    let mut group_pairs = None;
    for reorder in [Reorder::Off, Reorder::Cells] {
        for layout in Layout::ALL {
            for strategy in [Strategy::Grid, Strategy::SortedGrid] {
                bench_one(
                    &mut group,
                    Workload::Uniform,
                    units,
                    (strategy, Kernel::best(), 1),
                    Some((layout, reorder)),
                    &mut group_pairs,
                );
            }
        }
    }
    group.finish();
}

criterion_group!(benches, frame, layouts);
criterion_main!(benches);
