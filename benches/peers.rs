//! The same job done by our engine and by peer crates, in one run: build an
//! index from the current positions, then one fixed-radius query per unit
//! collecting the ids of the units within r = 10 (`dx*dx + dz*dz <= r*r`,
//! inclusive, self excluded) into a reused CSR buffer (`ids` plus one offset
//! per query), on the standard workloads (`docs/workloads.md`, seed 42).
//!
//! Groups `peers/<workload>/<units>`, ids:
//! - `ours-sorted-grid-cell-order`: the same after the engine's cell-order
//!   step (counting sort of the positions by cell), ids mapped back; timed.
//! - `ours-sorted-grid`, `ours-grid`: `SortedGrid` / `Grid` with
//!   [`Kernel::best`], 1 thread: `rebuild(points, r)` then [`query_all`] into
//!   reused [`QueryResults`]; the index is created once and keeps its buffers.
//! - `kiddo`: `ImmutableKdTree<f32, 2>` built from `[f32; 2]` points, queried
//!   with `within::<SquaredEuclidean<f32>>(r * r)` (squared radius, inclusive
//!   by default), unsorted, streamed through `visit`.
//! - `kiddo-batch`: the same tree, all queries in one `query_batch(..)
//!   .within(..).unsorted().execute()` call, copied into the CSR.
//! - `kiddo-self-join`: kiddo's dual-tree radius join
//!   (`query_tree(..).within(..).without_distances().execute()`), which needs
//!   two tree objects (the points are built twice); self pairs dropped, the
//!   pairs grouped into the CSR by a counting sort.
//! - `rstar`: `RTree::bulk_load` of `GeomWithData<[f32; 2], u32>`, queried with
//!   `locate_within_distance(p, r * r)` (squared radius, inclusive).
//! - `flat_spatial`: its point `Grid<u32, [f32; 2]>` (the crate's only point
//!   structure; a hash map of cells), cell size r, filled with `insert`,
//!   queried with `query_visitor` over the query's bounding square plus the
//!   inclusive distance test. Its own radius query `query_around` tests
//!   `d2 < r2` (strict); the setup checks it against our count under the
//!   same strict rule, but the benchmark uses the inclusive form so that every
//!   contender does the same job.
//!
//! Every timed run includes the peer's build from our f32 SoA positions
//! (converted to its point type inside the timed region; ours needs no
//! conversion) and all queries. Peers run single-threaded (kiddo without its
//! `multi-threaded` feature) and without compile-time SIMD (kiddo's `simd`
//! feature needs `-C target-feature`s that this crate does not set; ours picks
//! its kernel at run time).
//!
//! Positions are in spawn order (random with respect to space) for everyone:
//! unlike a simulation frame, nothing reorders the units into cell order first.
//!
//! Before any timing, each contender's result is checked against
//! `ours-sorted-grid`: the total number of (query, neighbor) pairs must be equal
//! (`assert_eq!`), and so must every query's neighbor set. The checks of all
//! cases run even under a name filter (a few seconds).
//!
//! Run: `cargo bench --bench peers` (filter: `cargo bench --bench peers -- peers/uniform/100000`).

// criterion_main! generates an undocumented `main`.
#![allow(missing_docs)]

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use flat_spatial::Grid as FlatGrid;
use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rstar::primitives::GeomWithData;
use rstar::RTree;
use spatial_query_lab::engine::sim::{
    layout::PermuteScratch, spawn, world_size, Reorder, Reorderer, Units, Workload, STANDARD_RADIUS,
};
use spatial_query_lab::engine::spatial::{
    query_all, Kernel, Points, QueryResults, SpatialIndex, Strategy,
};

const R: f32 = STANDARD_RADIUS;
const SEED: u64 = 42;
const CASES: [(Workload, usize); 3] = [
    (Workload::Uniform, 10_000),
    (Workload::Uniform, 100_000),
    (Workload::Clustered, 100_000),
];

/// Neighbor lists in CSR form: query `i` found `ids[offsets[i]..offsets[i + 1]]`.
#[derive(Default)]
struct Csr {
    ids: Vec<u32>,
    offsets: Vec<u32>,
}

impl Csr {
    fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    fn end_query(&mut self) {
        self.offsets.push(self.ids.len() as u32);
    }

    /// Total (query, neighbor) pairs.
    fn pairs(&self) -> u64 {
        self.ids.len() as u64
    }

    /// Query `i`'s neighbors, sorted.
    fn sorted(&self, i: usize) -> Vec<u32> {
        let mut v = self.ids[self.offsets[i] as usize..self.offsets[i + 1] as usize].to_vec();
        v.sort_unstable();
        v
    }
}

/// One of our strategies with its reused buffers.
struct Ours {
    index: Box<dyn SpatialIndex>,
    results: QueryResults,
    kernel: Kernel,
}

impl Ours {
    fn new(strategy: Strategy) -> Self {
        Ours {
            index: strategy.create(),
            results: QueryResults::default(),
            kernel: Kernel::best(),
        }
    }

    /// Rebuild, then one query per unit; returns the pairs found.
    fn run(&mut self, points: Points<'_>) -> u64 {
        self.index.rebuild(points, R);
        query_all(
            self.index.as_ref(),
            points,
            R,
            self.kernel,
            &mut self.results,
        )
        .neighbors
    }

    /// The last run's lists as [`Csr`] (for the setup check only).
    fn to_csr(&self, n: usize) -> Csr {
        let mut out = Csr::default();
        out.clear();
        for i in 0..n {
            out.ids.extend_from_slice(self.results.neighbors(i));
            out.end_query();
        }
        out
    }
}

/// Ours with the engine's cell-order step first: copy the positions, reorder
/// them into grid-cell order ([`Reorderer`], counting sort), rebuild the CSR
/// grid, query every unit in that order (coherent memory walks), and map the
/// result ids back to the input's ids. All of it is timed.
struct OursCellOrder {
    units: Units,
    reorderer: Reorderer,
    permute: PermuteScratch,
    inner: Ours,
}

impl OursCellOrder {
    fn new() -> Self {
        OursCellOrder {
            units: Units::default(),
            reorderer: Reorderer::default(),
            permute: PermuteScratch::default(),
            inner: Ours::new(Strategy::SortedGrid),
        }
    }

    fn run(&mut self, x: &[f32], z: &[f32]) -> u64 {
        let n = x.len();
        let u = &mut self.units;
        u.x.clear();
        u.x.extend_from_slice(x);
        u.z.clear();
        u.z.extend_from_slice(z);
        u.id.clear();
        u.id.extend(0..n as u32);
        for v in [&mut u.vx, &mut u.vz, &mut u.danger] {
            v.clear();
            v.resize(n, 0.0);
        }
        u.team.clear();
        u.team.resize(n, 0);
        u.enemies.clear();
        u.enemies.resize(n, 0);
        self.reorderer
            .reorder(u, Reorder::Cells, R, &mut self.permute);
        let pairs = self.inner.run(Points::new(&u.x, &u.z));
        for c in &mut self.inner.results.chunks {
            for id in &mut c.ids {
                *id = u.id[*id as usize];
            }
        }
        pairs
    }

    /// The last run's lists in the input's order (for the setup check only).
    fn to_csr(&self, n: usize) -> Csr {
        let mut slot = vec![0usize; n];
        for (k, &orig) in self.units.id.iter().enumerate() {
            slot[orig as usize] = k;
        }
        let mut out = Csr::default();
        out.clear();
        for &k in &slot {
            out.ids.extend_from_slice(self.inner.results.neighbors(k));
            out.end_query();
        }
        out
    }
}

/// kiddo: build an `ImmutableKdTree` (items = slice indices), then query.
/// `pts` is the reused conversion buffer.
fn run_kiddo(x: &[f32], z: &[f32], pts: &mut Vec<[f32; 2]>, out: &mut Csr) -> u64 {
    pts.clear();
    pts.extend(x.iter().zip(z).map(|(&x, &z)| [x, z]));
    let tree: ImmutableKdTree<f32, 2> =
        ImmutableKdTree::new_from_slice(pts).expect("kiddo build from finite points");
    out.clear();
    for (i, p) in pts.iter().enumerate() {
        let me = i as u32;
        tree.query(p)
            .within::<SquaredEuclidean<f32>>(R * R)
            .unsorted()
            .visit(|hit| {
                if hit.item != me {
                    out.ids.push(hit.item);
                }
            });
        out.end_query();
    }
    out.pairs()
}

/// kiddo's batch API: the same tree, all queries in one `query_batch` call
/// (`within`, unsorted, serial executor: kiddo is built without
/// `multi-threaded`), results collected per query, then copied into the CSR.
fn run_kiddo_batch(x: &[f32], z: &[f32], pts: &mut Vec<[f32; 2]>, out: &mut Csr) -> u64 {
    pts.clear();
    pts.extend(x.iter().zip(z).map(|(&x, &z)| [x, z]));
    let tree: ImmutableKdTree<f32, 2> =
        ImmutableKdTree::new_from_slice(pts).expect("kiddo build from finite points");
    let batch = tree
        .query_batch(pts)
        .within::<SquaredEuclidean<f32>>(R * R)
        .unsorted()
        .execute();
    out.clear();
    for (i, hits) in batch.iter().enumerate() {
        let me = i as u32;
        out.ids
            .extend(hits.iter().map(|h| h.item).filter(|&item| item != me));
        out.end_query();
    }
    out.pairs()
}

/// kiddo's tree self-join: every pair within the radius from one dual-tree
/// traversal. The join needs two distinct tree objects, so the same points
/// are built twice; pairs `(i, i)` are dropped and the rest grouped by
/// their left item into the CSR with a counting sort (`counts` reused).
fn run_kiddo_join(
    x: &[f32],
    z: &[f32],
    pts: &mut Vec<[f32; 2]>,
    counts: &mut Vec<u32>,
    out: &mut Csr,
) -> u64 {
    pts.clear();
    pts.extend(x.iter().zip(z).map(|(&x, &z)| [x, z]));
    let left: ImmutableKdTree<f32, 2> =
        ImmutableKdTree::new_from_slice(pts).expect("kiddo build from finite points");
    let right: ImmutableKdTree<f32, 2> =
        ImmutableKdTree::new_from_slice(pts).expect("kiddo build from finite points");
    let pairs = left
        .query_tree(&right)
        .within::<SquaredEuclidean<f32>>(R * R)
        .without_distances()
        .execute();
    let n = x.len();
    counts.clear();
    counts.resize(n + 1, 0);
    for p in &pairs {
        if p.left_item != p.right_item {
            counts[p.left_item as usize + 1] += 1;
        }
    }
    for k in 1..=n {
        counts[k] += counts[k - 1];
    }
    out.offsets.clear();
    out.offsets.extend_from_slice(counts);
    out.ids.clear();
    out.ids.resize(counts[n] as usize, 0);
    for p in &pairs {
        if p.left_item != p.right_item {
            let slot = &mut counts[p.left_item as usize];
            out.ids[*slot as usize] = p.right_item;
            *slot += 1;
        }
    }
    out.pairs()
}

/// rstar: bulk-load an R*-tree of points tagged with their index, then query.
fn run_rstar(x: &[f32], z: &[f32], out: &mut Csr) -> u64 {
    let pts: Vec<GeomWithData<[f32; 2], u32>> = x
        .iter()
        .zip(z)
        .enumerate()
        .map(|(i, (&x, &z))| GeomWithData::new([x, z], i as u32))
        .collect();
    let tree = RTree::bulk_load(pts);
    out.clear();
    for (i, (&qx, &qz)) in x.iter().zip(z).enumerate() {
        let me = i as u32;
        for hit in tree.locate_within_distance([qx, qz], R * R) {
            if hit.data != me {
                out.ids.push(hit.data);
            }
        }
        out.end_query();
    }
    out.pairs()
}

/// flat_spatial: fill its point `Grid` (cell size r, object = unit index),
/// then visit the cells overlapping each query's bounding square and keep the
/// points with `d2 <= r2`.
fn run_flat_spatial(x: &[f32], z: &[f32], out: &mut Csr) -> u64 {
    let mut grid: FlatGrid<u32, [f32; 2]> = FlatGrid::new(R as i32);
    for (i, (&x, &z)) in x.iter().zip(z).enumerate() {
        grid.insert([x, z], i as u32);
    }
    let r2 = R * R;
    out.clear();
    for (i, (&qx, &qz)) in x.iter().zip(z).enumerate() {
        let me = i as u32;
        grid.query_visitor([qx - R, qz - R], [qx + R, qz + R], |(handle, p)| {
            let (dx, dz) = (p[0] - qx, p[1] - qz);
            if dx * dx + dz * dz <= r2 {
                let id = *grid.get(handle).expect("handle from this grid").1;
                if id != me {
                    out.ids.push(id);
                }
            }
        });
        out.end_query();
    }
    out.pairs()
}

/// flat_spatial's own radius query (`query_around`, strict `d2 < r2`): pairs
/// found, self excluded. Setup check only.
fn flat_spatial_query_around_pairs(x: &[f32], z: &[f32]) -> u64 {
    let mut grid: FlatGrid<u32, [f32; 2]> = FlatGrid::new(R as i32);
    for (i, (&x, &z)) in x.iter().zip(z).enumerate() {
        grid.insert([x, z], i as u32);
    }
    let mut pairs = 0;
    for (i, (&qx, &qz)) in x.iter().zip(z).enumerate() {
        for (handle, _) in grid.query_around([qx, qz], R) {
            pairs += u64::from(*grid.get(handle).expect("handle from this grid").1 != i as u32);
        }
    }
    pairs
}

/// Pairs of `reference` with `d2 < r2` (strict), with the kernels' arithmetic.
fn strict_pairs(x: &[f32], z: &[f32], reference: &Csr) -> u64 {
    let r2 = R * R;
    let mut pairs = 0;
    for i in 0..x.len() {
        let ids = &reference.ids[reference.offsets[i] as usize..reference.offsets[i + 1] as usize];
        for &j in ids {
            let (dx, dz) = (x[j as usize] - x[i], z[j as usize] - z[i]);
            pairs += u64::from(dx * dx + dz * dz < r2);
        }
    }
    pairs
}

/// Asserts that `got` found exactly the pairs of `reference`: same total, same
/// set per query.
fn check(case: &str, name: &str, reference: &Csr, got: &Csr) {
    assert_eq!(
        got.pairs(),
        reference.pairs(),
        "{case}: {name} finds {} (query, neighbor) pairs, ours-sorted-grid {}",
        got.pairs(),
        reference.pairs()
    );
    let n = reference.offsets.len() - 1;
    assert_eq!(
        got.offsets.len() - 1,
        n,
        "{case}: {name} ran a different number of queries"
    );
    for i in 0..n {
        assert_eq!(
            got.sorted(i),
            reference.sorted(i),
            "{case}: {name}, neighbors of unit {i}"
        );
    }
    eprintln!(
        "{case}: {name}: {} pairs, identical to ours-sorted-grid",
        got.pairs()
    );
}

fn peers(c: &mut Criterion) {
    for (workload, n) in CASES {
        let case = format!("peers/{}/{}", workload.key(), n);
        let units = spawn(n, world_size(n, R), R, workload, SEED);
        let (x, z) = (&units.x[..], &units.z[..]);
        let points = Points::new(x, z);

        // Setup check: every contender must do exactly our job.
        let mut sorted_grid = Ours::new(Strategy::SortedGrid);
        let want = sorted_grid.run(points);
        let reference = sorted_grid.to_csr(n);
        assert_eq!(want, reference.pairs());
        eprintln!("{case}: ours-sorted-grid: {want} pairs");
        let mut cell_order = OursCellOrder::new();
        cell_order.run(x, z);
        check(
            &case,
            "ours-sorted-grid-cell-order",
            &reference,
            &cell_order.to_csr(n),
        );
        let mut grid = Ours::new(Strategy::Grid);
        grid.run(points);
        check(&case, "ours-grid", &reference, &grid.to_csr(n));
        let (mut pts, mut out) = (Vec::new(), Csr::default());
        run_kiddo(x, z, &mut pts, &mut out);
        check(&case, "kiddo", &reference, &out);
        run_kiddo_batch(x, z, &mut pts, &mut out);
        check(&case, "kiddo-batch", &reference, &out);
        let mut counts = Vec::new();
        run_kiddo_join(x, z, &mut pts, &mut counts, &mut out);
        check(&case, "kiddo-self-join", &reference, &out);
        run_rstar(x, z, &mut out);
        check(&case, "rstar", &reference, &out);
        run_flat_spatial(x, z, &mut out);
        check(&case, "flat_spatial", &reference, &out);
        let strict = strict_pairs(x, z, &reference);
        assert_eq!(
            flat_spatial_query_around_pairs(x, z),
            strict,
            "{case}: flat_spatial query_around (strict <) vs our strict count"
        );
        eprintln!("{case}: flat_spatial query_around (strict <): {strict} pairs, identical to ours under d2 < r2");

        let mut group = c.benchmark_group(&case);
        common::configure(&mut group, n as u64);
        group.bench_function("ours-sorted-grid", |b| b.iter(|| sorted_grid.run(points)));
        group.bench_function("ours-sorted-grid-cell-order", |b| {
            b.iter(|| cell_order.run(x, z))
        });
        group.bench_function("ours-grid", |b| b.iter(|| grid.run(points)));
        group.bench_function("kiddo", |b| b.iter(|| run_kiddo(x, z, &mut pts, &mut out)));
        group.bench_function("kiddo-batch", |b| {
            b.iter(|| run_kiddo_batch(x, z, &mut pts, &mut out))
        });
        group.bench_function("kiddo-self-join", |b| {
            b.iter(|| run_kiddo_join(x, z, &mut pts, &mut counts, &mut out))
        });
        group.bench_function("rstar", |b| b.iter(|| run_rstar(x, z, &mut out)));
        group.bench_function("flat_spatial", |b| {
            b.iter(|| run_flat_spatial(x, z, &mut out))
        });
        group.finish();
    }
}

criterion_group!(benches, peers);
criterion_main!(benches);
