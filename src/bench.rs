//! The headless benchmark behind `spatial-query-lab bench`: full frames of the
//! standard workloads (`shared/WORKLOADS.md`) for every strategy x kernel x
//! thread count, reported as per-phase medians.

pub mod roofline;

use serde::Serialize;

use crate::format::{length, thousands};
use crate::sim::budget::NaiveCost;
use crate::sim::{
    Layout, Pass, Reorder, Settings, Simulation, StepStats, Workload, STANDARD_RADIUS,
};
use crate::spatial::{Kernel, Strategy};

/// Time step of a benchmark frame, seconds (`shared/WORKLOADS.md`).
pub const BENCH_DT: f32 = 1.0 / 60.0;
/// A combination whose estimated frame time exceeds this (seconds) is skipped.
pub const SKIP_ABOVE_S: f64 = 10.0;
/// At the default [`SKIP_ABOVE_S`], a combination whose estimated frame time
/// exceeds this (seconds) times only its last [`SLOW_FRAMES`] frames after
/// one warm-up frame; the frames before are stepped untimed with the CSR
/// grid ([`measure_after`]), so it ends on the same frame as the others and
/// the naive scan at large N finishes in minutes. It scales with the skip
/// limit: see [`slow_above_s`].
pub const SLOW_ABOVE_S: f64 = 0.5;

/// The estimated frame time (seconds) above which a combination times only
/// its last [`SLOW_FRAMES`] frames, for a skip limit of `skip_above_s`:
/// [`SLOW_ABOVE_S`] at the default [`SKIP_ABOVE_S`], in proportion
/// otherwise. A raised limit (`scripts/cache-report.sh` runs the bench under
/// valgrind with `--skip-above 1000000`) then also keeps every frame timed
/// and run with the strategy asked for, whatever the machine's load: the
/// estimate is a measurement, and a threshold crossed only on a busy machine
/// made the report's frame count, and so its misses per query, vary.
pub fn slow_above_s(skip_above_s: f64) -> f64 {
    SLOW_ABOVE_S * skip_above_s / SKIP_ABOVE_S
}
/// Counted frames for slow combinations.
pub const SLOW_FRAMES: usize = 3;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// Unit counts.
    pub units: Vec<usize>,
    /// Counted frames per combination (median over these).
    pub frames: usize,
    /// Warm-up frames per combination (not counted).
    pub warmup: usize,
    /// Spawn seed.
    pub seed: u64,
    /// Workload.
    pub workload: Workload,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Strategies.
    pub strategies: Vec<Strategy>,
    /// Kernels (unavailable ones are reported as skipped; default
    /// [`Kernel::native`]).
    pub kernels: Vec<Kernel>,
    /// Unit memory orders to compare.
    pub reorders: Vec<Reorder>,
    /// Frames between reorders.
    pub reorder_every: u32,
    /// Data layouts to compare.
    pub layouts: Vec<Layout>,
    /// Passes to compare (collect ids, fused, fused half stencil).
    pub passes: Vec<Pass>,
    /// Grid cell sizes to compare, world units (each finite and > 0; empty:
    /// the standard radius). Naive has no grid: it runs with the first only.
    pub cell_sizes: Vec<f32>,
    /// A combination whose estimated frame time exceeds this many seconds is
    /// skipped, and one above [`slow_above_s`] of it times only its last
    /// frames (default [`SKIP_ABOVE_S`]; raised by `scripts/cache-report.sh`,
    /// whose naive runs under valgrind are estimated far above it).
    pub skip_above_s: f64,
    /// Separation steering strength while timed (default 0: steering off, as
    /// `shared/WORKLOADS.md` asks, so `clustered` and `hotspot` keep their shape).
    pub separation: f32,
    /// Query radius, world units (default the standard 10).
    pub radius: f32,
    /// World edge, world units (`None`: the standard density for each unit count).
    pub world: Option<f32>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            units: vec![1_000, 10_000, 100_000],
            frames: 60,
            warmup: 5,
            seed: 42,
            workload: Workload::Uniform,
            threads: vec![1],
            strategies: Strategy::ALL.to_vec(),
            kernels: Kernel::native().to_vec(),
            reorders: vec![Reorder::default()],
            reorder_every: Settings::default().reorder_every,
            layouts: vec![Layout::default()],
            passes: vec![Pass::default()],
            cell_sizes: vec![STANDARD_RADIUS],
            skip_above_s: SKIP_ABOVE_S,
            separation: 0.0,
            radius: STANDARD_RADIUS,
            world: None,
        }
    }
}

/// Median milliseconds per phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PhaseMs {
    /// Median hardware cache misses per query of the query phase: L1D and
    /// last level (`None` where the counters are unavailable). Not part of
    /// the JSON `median_ms` object; copied into the row.
    #[serde(skip)]
    pub query_misses: Option<(f64, f64)>,
    /// Units that died and reinforcements spawned over the counted frames
    /// (`battle` churn; 0 otherwise). Copied into the row.
    #[serde(skip)]
    pub churn: (u64, u64),
    /// Moving units.
    #[serde(rename = "move")]
    pub move_: f64,
    /// Rebuilding the index.
    pub rebuild: f64,
    /// All queries.
    pub query: f64,
    /// Applying the results.
    pub apply: f64,
    /// Median of the per-frame sums (not the sum of the medians).
    pub total: f64,
}

/// One measured (or skipped) combination.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRow {
    /// Strategy key (`naive`, `grid`, `sorted-grid`).
    pub strategy: String,
    /// Kernel key (`scalar`, `sse`, `avx2`, `avx512`, `neon`).
    pub kernel: String,
    /// Threads every phase ran on (for a skipped row: the count asked for;
    /// a count the OS refused is a skipped row, never a row measured on
    /// fewer threads).
    pub threads: usize,
    /// Unit count.
    pub units: usize,
    /// Workload key.
    pub workload: String,
    /// Unit memory order (`off`, `cells`, `morton`, `resident`).
    pub reorder: String,
    /// Data layout (`aos-pointers`, `aos`, `soa`, `hot-cold`).
    pub layout: String,
    /// How results reach the apply step (`collect`, `fused`, `fused-half`).
    pub pass: String,
    /// Grid cell edge the last frame used, world units: the effective one,
    /// which exceeds the asked one only where the grid's cell cap raised it
    /// (the asked one for a skipped row); `null` for Naive (no grid).
    pub cell_size: Option<f32>,
    /// Counted frames (0 when skipped).
    pub frames: usize,
    /// Median milliseconds per phase (`None`, `null` in JSON, when skipped).
    pub median_ms: Option<PhaseMs>,
    /// Candidates tested in the last frame.
    pub candidates: u64,
    /// Neighbor pairs found in the last frame (identical across combinations).
    pub neighbors: u64,
    /// Median L1D read misses per query of the query phase (hardware
    /// counters); `null` where the counters are unavailable.
    pub l1d_misses_per_query: Option<f64>,
    /// Median last-level cache misses per query of the query phase
    /// (hardware counters); `null` where the counters are unavailable.
    pub llc_misses_per_query: Option<f64>,
    /// Units that died over the counted frames (`battle` churn; 0 otherwise).
    pub deaths: u64,
    /// Reinforcements spawned over the counted frames (`battle`; equals `deaths`).
    pub spawns: u64,
    /// Why the combination was not run, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Estimated frame time in ms for a skipped combination, labeled as an estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_total_ms: Option<f64>,
    /// The OS error when the OS refused to start `threads` threads (the
    /// row is then skipped, and `skipped` says so). Not in the JSON.
    #[serde(skip)]
    pub threads_refused: Option<String>,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Runs `frames` counted frames after `warmup` and returns the last frame's
/// stats with the per-phase medians. Allocates the simulation.
pub fn measure(settings: &Settings, warmup: usize, frames: usize) -> (PhaseMs, StepStats) {
    measure_after(settings, 0, warmup, frames)
}

/// Like [`measure`], after first stepping `fast_forward` untimed frames with
/// the CSR grid and the best kernel. The simulation is bit-identical for every
/// strategy and kernel (tested), so the world reaches the same frame index as
/// a full run: a slow combination can time its last frames only and still
/// report the same neighbor count as the others.
///
/// When the OS refuses `settings.threads` threads, the frames run on one
/// thread and the returned stats say so (`threads`); [`try_measure_after`]
/// refuses instead.
pub fn measure_after(
    settings: &Settings,
    fast_forward: usize,
    warmup: usize,
    frames: usize,
) -> (PhaseMs, StepStats) {
    measure_sim(
        Simulation::new(settings),
        settings,
        fast_forward,
        warmup,
        frames,
    )
}

/// Like [`measure_after`], but steps nothing when the OS refuses to start
/// `settings.threads` threads: returns the OS error instead
/// ([`Simulation::pool_error`]), so no timing is labeled with threads it
/// did not have. Allocates the simulation (the units are spawned before the
/// threads are asked for).
pub fn try_measure_after(
    settings: &Settings,
    fast_forward: usize,
    warmup: usize,
    frames: usize,
) -> Result<(PhaseMs, StepStats), String> {
    let sim = Simulation::new(settings);
    if let Some((_, why)) = sim.pool_error() {
        return Err(why.to_string());
    }
    Ok(measure_sim(sim, settings, fast_forward, warmup, frames))
}

/// The frames of [`measure_after`] on `sim`.
fn measure_sim(
    mut sim: Simulation,
    settings: &Settings,
    fast_forward: usize,
    warmup: usize,
    frames: usize,
) -> (PhaseMs, StepStats) {
    let fast = Settings {
        strategy: Strategy::SortedGrid,
        kernel: Kernel::best(),
        ..settings.clone()
    };
    for _ in 0..fast_forward {
        sim.step(BENCH_DT, &fast);
    }
    for _ in 0..warmup {
        sim.step(BENCH_DT, settings);
    }
    let mut cols: [Vec<f64>; 5] = Default::default();
    let (mut l1d, mut llc) = (Vec::new(), Vec::new());
    let mut churn = (0u64, 0u64);
    let mut last = StepStats::default();
    for _ in 0..frames.max(1) {
        last = sim.step(BENCH_DT, settings);
        churn.0 += last.deaths as u64;
        churn.1 += last.spawns as u64;
        if let Some(m) = last.query_cache {
            let n = sim.len().max(1) as f64;
            l1d.push(m.l1d as f64 / n);
            llc.push(m.llc as f64 / n);
        }
        cols[0].push(last.move_s * 1e3);
        cols[1].push(last.rebuild_s * 1e3);
        cols[2].push(last.query_s * 1e3);
        cols[3].push(last.apply_s * 1e3);
        cols[4].push(last.total_s() * 1e3);
    }
    let [m, r, q, a, t] = &mut cols;
    let ms = PhaseMs {
        query_misses: (!l1d.is_empty()).then(|| (median(&mut l1d), median(&mut llc))),
        churn,
        move_: median(m),
        rebuild: median(r),
        query: median(q),
        apply: median(a),
        total: median(t),
    };
    (ms, last)
}

/// Settings of one benchmark combination: radius `cfg.radius`, world
/// `cfg.world`, the standard cell size (each run sets its own),
/// real-time speed, steering `cfg.separation` (default off: separation 0, `shared/WORKLOADS.md`: timed
/// frames move units in straight lines, so `clustered` and `hotspot` keep
/// their shape for the whole run).
pub fn bench_settings(
    strategy: Strategy,
    kernel: Kernel,
    threads: usize,
    units: usize,
    reorder: Reorder,
    layout: Layout,
    cfg: &BenchConfig,
) -> Settings {
    Settings {
        reorder,
        layout,
        pass: cfg.passes.first().copied().unwrap_or_default(),
        reorder_every: cfg.reorder_every,
        units,
        workload: cfg.workload,
        seed: cfg.seed,
        strategy,
        kernel,
        threads,
        radius: cfg.radius,
        cell_size: STANDARD_RADIUS,
        cell_follows_radius: false,
        speed: 1.0,
        separation: cfg.separation,
        world: cfg.world,
        ..Settings::default()
    }
}

/// The (cell size, strategy) pairs of `cfg` in run order, cell sizes outer
/// (the standard radius when `cfg.cell_sizes` is empty); Naive, which has
/// no grid, only with the first cell size. Allocates the list.
fn cell_runs(cfg: &BenchConfig) -> Vec<(f32, Strategy)> {
    let cells: &[f32] = if cfg.cell_sizes.is_empty() {
        &[STANDARD_RADIUS]
    } else {
        &cfg.cell_sizes
    };
    let mut runs = Vec::new();
    for (k, &cell) in cells.iter().enumerate() {
        for &st in &cfg.strategies {
            if st != Strategy::Naive || k == 0 {
                runs.push((cell, st));
            }
        }
    }
    runs
}

/// Runs every combination of `cfg`, calling `progress` with each finished row
/// (for live output), and returns all rows in run order: for each unit
/// count, for each thread count, for each reorder mode, for each layout,
/// for each pass, for each cell size, strategies in order, kernels in order (Naive only at
/// the first cell size: it has no grid).
pub fn run(cfg: &BenchConfig, mut progress: impl FnMut(&BenchRow)) -> Vec<BenchRow> {
    let mut rows = Vec::new();
    let mut naive_cost = NaiveCost::default();
    for &units in &cfg.units {
        for &threads in &cfg.threads {
            for (&reorder, &layout, &pass) in cfg.reorders.iter().flat_map(|r| {
                cfg.layouts
                    .iter()
                    .flat_map(move |l| cfg.passes.iter().map(move |p| (r, l, p)))
            }) {
                for (cell, strategy) in cell_runs(cfg) {
                    for &kernel in &cfg.kernels {
                        let mut row = BenchRow {
                            strategy: strategy.key().to_string(),
                            kernel: kernel.key().to_string(),
                            threads,
                            units,
                            workload: cfg.workload.key().to_string(),
                            reorder: reorder.key().to_string(),
                            layout: layout.key().to_string(),
                            pass: pass.key().to_string(),
                            cell_size: (strategy != Strategy::Naive).then_some(cell),
                            frames: 0,
                            median_ms: None,
                            candidates: 0,
                            neighbors: 0,
                            l1d_misses_per_query: None,
                            llc_misses_per_query: None,
                            deaths: 0,
                            spawns: 0,
                            skipped: None,
                            estimated_total_ms: None,
                            threads_refused: None,
                        };
                        if !kernel.is_available() {
                            row.skipped = Some(format!("this CPU cannot run {}", kernel.name()));
                            progress(&row);
                            rows.push(row);
                            continue;
                        }
                        let (mut warmup, mut frames) = (cfg.warmup, cfg.frames.max(1));
                        let mut fast_forward = 0;
                        if strategy == Strategy::Naive {
                            naive_cost.get_or_measure(kernel, layout, cfg.seed, cfg.workload);
                            let est = naive_cost
                                .frame_seconds(kernel, layout, units, threads)
                                .unwrap_or(0.0);
                            if est > cfg.skip_above_s {
                                row.skipped = Some(format!(
                                    "estimated {:.1} s per frame (> {} s): not run",
                                    est, cfg.skip_above_s
                                ));
                                row.estimated_total_ms = Some(est * 1e3);
                                progress(&row);
                                rows.push(row);
                                continue;
                            }
                            if est > slow_above_s(cfg.skip_above_s) {
                                // Same last frame as the full runs, fewer timed frames.
                                let total = warmup + frames;
                                warmup = 1;
                                frames = frames.min(SLOW_FRAMES);
                                fast_forward = total.saturating_sub(warmup + frames);
                            }
                        }
                        let settings = Settings {
                            cell_size: cell,
                            pass,
                            ..bench_settings(strategy, kernel, threads, units, reorder, layout, cfg)
                        };
                        let (ms, last) =
                            match try_measure_after(&settings, fast_forward, warmup, frames) {
                                Ok(m) => m,
                                Err(why) => {
                                    row.skipped = Some(format!(
                                        "the OS refused to start {threads} threads ({why}): not run"
                                    ));
                                    row.threads_refused = Some(why);
                                    progress(&row);
                                    rows.push(row);
                                    continue;
                                }
                            };
                        // Those asked for: the pool was built (checked above).
                        row.threads = last.threads;
                        row.cell_size = last.grid.map(|g| g.cell);
                        row.frames = frames;
                        row.median_ms = Some(ms);
                        row.candidates = last.query.candidates;
                        row.neighbors = last.query.neighbors;
                        (row.deaths, row.spawns) = ms.churn;
                        row.l1d_misses_per_query = ms.query_misses.map(|m| m.0);
                        row.llc_misses_per_query = ms.query_misses.map(|m| m.1);
                        progress(&row);
                        rows.push(row);
                    }
                }
            }
        }
    }
    rows
}

impl BenchRow {
    /// The per-phase medians, zeros for a skipped row.
    pub fn ms(&self) -> PhaseMs {
        self.median_ms.unwrap_or_default()
    }

    /// One line of live progress for stderr, naming every key that tells rows
    /// apart (units, unit order, layout, pass, strategy, kernel, threads, cell size), then the total
    /// and query medians and the neighbors, or why the row was skipped.
    pub fn progress_line(&self) -> String {
        let cell = self
            .cell_size
            .map_or(String::new(), |c| format!(", cell {}", length(c)));
        let head = format!(
            "  {} units, order {}, {}, {}, {} {} x{}{cell}",
            thousands(self.units as u64),
            self.reorder,
            self.layout,
            self.pass,
            self.strategy,
            self.kernel,
            self.threads
        );
        match &self.skipped {
            Some(why) => format!("{head}: skipped, {why}"),
            None => format!(
                "{head}: total {:.3} ms (query {:.3} ms), {} neighbors{}",
                self.ms().total,
                self.ms().query,
                thousands(self.neighbors),
                if self.deaths > 0 {
                    format!(", {} deaths and spawns", thousands(self.deaths))
                } else {
                    String::new()
                }
            ),
        }
    }
}

/// The reference row for speedups: Naive/Scalar with the same units and 1 thread.
fn reference<'a>(rows: &'a [BenchRow], row: &BenchRow) -> Option<&'a BenchRow> {
    rows.iter().find(|r| {
        r.units == row.units
            && r.reorder == row.reorder
            && r.layout == row.layout
            && r.pass == row.pass
            && r.strategy == "naive"
            && r.kernel == "scalar"
            && r.threads == 1
    })
}

/// `a / b` formatted as a ratio, `~` marking a ratio against an estimate.
fn ratio(num: Option<f64>, den: f64, estimated: bool) -> String {
    match num {
        Some(n) if den > 0.0 => format!("{}{:.1}x", if estimated { "~" } else { "" }, n / den),
        _ => "-".to_string(),
    }
}

/// Renders rows as a Markdown table with speedups over Naive/Scalar (1 thread)
/// of the same unit count, reorder mode, layout and pass; a ratio against an estimated naive time is marked `~`.
/// The cell column is the grid cell edge (world units; `-` for Naive).
pub fn to_markdown(rows: &[BenchRow]) -> String {
    let counted = rows.iter().any(|r| r.l1d_misses_per_query.is_some());
    let mut s = String::from(
        "| units | reorder | layout | pass | strategy | kernel | threads | cell | move ms | rebuild ms | query ms | apply ms | total ms | candidates | neighbors | query speedup | total speedup |",
    );
    s += if counted {
        " L1D misses/query | LLC misses/query |\n|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    } else {
        "\n|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    };
    for r in rows {
        let cell = r.cell_size.map_or("-".to_string(), length);
        if let Some(why) = &r.skipped {
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {cell} | skipped: {why} | | | | | | | | |\n",
                r.units, r.reorder, r.layout, r.pass, r.strategy, r.kernel, r.threads
            );
            continue;
        }
        let (q_ref, t_ref, est) = match reference(rows, r) {
            Some(b) if b.skipped.is_none() => (Some(b.ms().query), Some(b.ms().total), false),
            Some(b) => (b.estimated_total_ms, b.estimated_total_ms, true),
            None => (None, None, false),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {cell} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} |\n",
            r.units,
            r.reorder,
            r.layout,
            r.pass,
            r.strategy,
            r.kernel,
            r.threads,
            r.ms().move_,
            r.ms().rebuild,
            r.ms().query,
            r.ms().apply,
            r.ms().total,
            r.candidates,
            r.neighbors,
            ratio(q_ref, r.ms().query, est),
            ratio(t_ref, r.ms().total, est),
        );
        if counted {
            s.pop();
            let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
            s += &format!(
                " {} | {} |\n",
                f(r.l1d_misses_per_query),
                f(r.llc_misses_per_query)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slow_threshold_follows_the_skip_limit() {
        assert_eq!(slow_above_s(SKIP_ABOVE_S), SLOW_ABOVE_S);
        // The cache report's limit: its naive rows keep every frame timed,
        // however slow valgrind on a busy machine makes the estimate.
        assert!(slow_above_s(1e6) >= 5e4);
        assert!(slow_above_s(1.0) < SLOW_ABOVE_S);
    }
}
