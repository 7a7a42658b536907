//! The headless benchmark behind `spatial-query-lab bench`: full frames of the
//! standard workloads (`docs/workloads.md`) for every strategy x kernel x
//! thread count, reported as per-phase medians.

pub mod cli;
pub mod roofline;

use crate::engine::sim::{Layout, Reorder, Settings, STANDARD_RADIUS};
use crate::engine::spatial::{Kernel, Strategy};
use crate::format::{length, thousands};
use crate::measure::model_task::model_row;
use crate::measure::predict::naive_predictor;
use crate::measure::run::{run_fresh, run_fresh_watched};
use crate::measure::{Guards, Measurement, Outcome, Plan, Spec, Variant};
pub use crate::settings::values::{bench_base, BenchLists};
use crate::settings::view::Geometry;

use crate::measure::BENCH_DT;
/// A combination whose estimated frame time exceeds this (seconds) is skipped.
pub const SKIP_ABOVE_S: f64 = 10.0;
/// At the default [`SKIP_ABOVE_S`], a combination whose estimated frame time
/// exceeds this (seconds) times only its last [`SLOW_FRAMES`] frames after
/// one warm-up frame; the frames before are stepped untimed with the CSR
/// grid ([`Plan::take_fast_forward`]), so it ends on the same frame as the others and
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
/// A skip limit (seconds) at or above which `bench` estimates no frame time
/// (a day: no estimate would reach it), see [`plan`].
pub const NO_ESTIMATE_ABOVE_S: f64 = 86_400.0;

/// What to run: the settings every combination starts from, the lists of
/// the settings it compares, and how each is measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchConfig {
    /// The settings every combination starts from: `bench`'s defaults
    /// ([`bench_base`]: steering off, as `docs/workloads.md` asks, so
    /// `clustered` and `hotspot` keep their shape), a scenario's engine
    /// values and the single-value flags (seed, workload, world, radius,
    /// reorder-every, separation).
    pub settings: Settings,
    /// The settings compared, one list each (unit counts, thread counts,
    /// orders, layouts, passes, cell sizes, strategies, kernels; a kernel
    /// this CPU lacks is reported as skipped): one combination per value
    /// ([`variants`]). A list left empty is the base's value alone.
    pub lists: BenchLists,
    /// Counted frames per combination and round (median over these).
    pub frames: usize,
    /// Rounds: every combination once per round, in turn (at least 1;
    /// [`crate::measure::Plan::with_rounds`]).
    pub rounds: usize,
    /// Warm-up frames per combination (not counted).
    pub warmup: usize,
    /// A combination whose estimated frame time exceeds this many seconds is
    /// skipped, and one above [`slow_above_s`] of it times only its last
    /// frames (default [`SKIP_ABOVE_S`]; raised by `scripts/cache-report.sh`,
    /// whose naive runs under valgrind are estimated far above it).
    pub skip_above_s: f64,
    /// The cache geometry each measured row's query phase is modeled with
    /// ([`crate::measure::memory::modeled`]); `None`: not modeled.
    pub cache_model: Option<Geometry>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            settings: bench_base(),
            lists: BenchLists::default(),
            frames: 60,
            rounds: 1,
            warmup: 5,
            skip_above_s: SKIP_ABOVE_S,
            cache_model: Some(Geometry::Machine),
        }
    }
}

/// `list`, or `base` alone when the list is empty.
fn or_base<T: Clone>(list: &[T], base: T) -> Vec<T> {
    if list.is_empty() {
        vec![base]
    } else {
        list.to_vec()
    }
}

pub use crate::measure::row::{PhaseMs, Row as BenchRow};

/// Counted frames of `settings` after `warmup` settling frames on a fresh
/// simulation, through the measurement engine ([`crate::measure`]): the
/// measurement, or the reason it was not made (the OS refused the thread
/// count). Allocates the simulation.
pub fn measure(settings: &Settings, warmup: usize, frames: usize) -> Result<Measurement, String> {
    let mut plan = Plan::new(
        vec![Variant::new(settings.strategy.name(), settings.clone())],
        Spec::new(warmup, frames),
        Guards::NONE,
    );
    run_fresh(&mut plan, BENCH_DT, |_| {});
    match &plan.outcomes()[0] {
        Outcome::Measured(m) => Ok(m.clone()),
        Outcome::Skipped(s) => Err(s.why.clone()),
    }
}

/// Settings of one benchmark combination: `cfg.settings` (its seed,
/// workload, radius, world, order period and steering: default off,
/// separation 0, so that timed frames move units in straight lines and
/// `clustered` and `hotspot` keep their shape, as `docs/workloads.md`
/// asks) with the values given, the first pass of the list, the standard
/// cell size (each run sets its own), real-time speed, not paused.
pub fn bench_settings(
    strategy: Strategy,
    kernel: Kernel,
    threads: usize,
    units: usize,
    reorder: Reorder,
    layout: Layout,
    cfg: &BenchConfig,
) -> Settings {
    let base = &cfg.settings;
    Settings {
        reorder,
        layout,
        pass: cfg.lists.pass.first().copied().unwrap_or(base.pass),
        units,
        strategy,
        kernel,
        threads,
        cell_size: STANDARD_RADIUS,
        cell_follows_radius: false,
        speed: 1.0,
        paused: false,
        ..base.clone()
    }
}

/// The (cell size, strategy) pairs of `cfg` in run order, cell sizes outer
/// (the standard radius when `cfg.cell_sizes` is empty); Naive, which has
/// no grid, only with the first cell size. Allocates the list.
fn cell_runs(cfg: &BenchConfig) -> Vec<(f32, Strategy)> {
    let cells = or_base(&cfg.lists.cell_size, STANDARD_RADIUS);
    let mut runs = Vec::new();
    for (k, &cell) in cells.iter().enumerate() {
        for &st in &or_base(&cfg.lists.strategy, cfg.settings.strategy) {
            if st != Strategy::Naive || k == 0 {
                runs.push((cell, st));
            }
        }
    }
    runs
}

/// The label of a combination in progress lines: units, order, layout,
/// pass, strategy, kernel, threads and cell size.
fn label(s: &Settings) -> String {
    let cell = if s.strategy == Strategy::Naive {
        String::new()
    } else {
        format!(", cell {}", length(s.cell_size))
    };
    format!(
        "{} units, order {}, {}, {}, {} {} x{}{cell}",
        thousands(s.units as u64),
        s.reorder.key(),
        s.layout.key(),
        s.pass.key(),
        s.strategy.key(),
        s.kernel_key(),
        s.threads
    )
}

/// The combinations of `cfg` as a plan's variants, in run order: for each
/// unit count, for each thread count, for each reorder mode, for each
/// layout, for each pass, for each cell size, strategies in order, kernels
/// in order (Naive only at the first cell size: it has no grid). A
/// combination that calls no kernel ([`Settings::uses_kernel`]: Grid, and
/// Naive through a layout without dense positions) is one variant, not one
/// per kernel, with the Scalar kernel set. A kernel this CPU or build cannot run is a
/// variant marked skipped ([`Kernel::absent_reason`]). Allocates the list.
pub fn variants(cfg: &BenchConfig) -> Vec<Variant> {
    let mut out = Vec::new();
    let (base, l) = (&cfg.settings, &cfg.lists);
    for &units in &or_base(&l.units, base.units) {
        for &threads in &or_base(&l.threads, base.threads) {
            for &reorder in &or_base(&l.reorder, base.reorder) {
                for &layout in &or_base(&l.layout, base.layout) {
                    for &pass in &or_base(&l.pass, base.pass) {
                        for (cell, strategy) in cell_runs(cfg) {
                            let mut kernel_free = false;
                            for &kernel in &or_base(&l.kernel, base.kernel) {
                                let settings = Settings {
                                    cell_size: cell,
                                    pass,
                                    ..bench_settings(
                                        strategy, kernel, threads, units, reorder, layout, cfg,
                                    )
                                };
                                if !settings.uses_kernel() {
                                    if std::mem::replace(&mut kernel_free, true) {
                                        continue;
                                    }
                                    let settings = Settings {
                                        kernel: Kernel::Scalar,
                                        ..settings
                                    };
                                    out.push(Variant::new(label(&settings), settings));
                                    continue;
                                }
                                let mut v = Variant::new(label(&settings), settings);
                                v.skip = kernel.absent_reason();
                                out.push(v);
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The plan of `cfg`: [`variants`], `cfg.warmup` settling and `cfg.frames`
/// counted frames each; a naive combination estimated above
/// `cfg.skip_above_s` is skipped, and one above [`slow_above_s`] of it
/// counts only [`SLOW_FRAMES`] frames after one settling frame (stepping
/// the frames before untimed with the CSR grid, so it ends on the same
/// frame); so does any combination whose first frame takes that long.
///
/// With a skip limit of [`NO_ESTIMATE_ABOVE_S`] or more nothing is
/// estimated, so no naive calibration runs: `scripts/cache-report.sh`
/// (`--skip-above 1000000`) counts cache misses under valgrind inside the
/// query phase, where the calibration's naive frames (some 150,000 D1
/// misses, varying by 40,000 with where the environment puts the stack)
/// drowned the 1,000-unit row it subtracts them from.
pub fn plan(cfg: &BenchConfig) -> Plan {
    let plan = Plan::new(
        variants(cfg),
        Spec::new(cfg.warmup, cfg.frames),
        Guards {
            skip_above_s: cfg.skip_above_s,
            fewer_above_s: slow_above_s(cfg.skip_above_s),
            fewer_frames: SLOW_FRAMES,
        },
    )
    .with_rounds(cfg.rounds);
    if cfg.skip_above_s >= NO_ESTIMATE_ABOVE_S {
        return plan;
    }
    plan.with_predictor(naive_predictor(cfg.settings.seed, cfg.settings.workload))
}

/// Runs every combination of `cfg` ([`plan`]), calling `progress` with each
/// finished row (for live output, in the order rows finish), and returns all
/// rows in the plan's order (the order of `cfg`'s lists: unit counts first),
/// a skipped row among the measured ones it belongs with. Each
/// measured row carries its query phase's cache model when `cfg` asks for
/// one ([`model_row`]).
pub fn run(cfg: &BenchConfig, progress: impl FnMut(&BenchRow)) -> Vec<BenchRow> {
    run_watched(cfg, progress, |_, _| {})
}

/// [`run`], also calling `on_visit(fraction done, what)` as each visit of
/// a row begins ([`run_fresh_watched`]): the rows finish only after their
/// last round, so this is what shows a long run moving.
pub fn run_watched(
    cfg: &BenchConfig,
    mut progress: impl FnMut(&BenchRow),
    on_visit: impl FnMut(f64, &str),
) -> Vec<BenchRow> {
    let mut plan = plan(cfg);
    let mut rows = Vec::with_capacity(plan.variants().len());
    let mut models = Vec::new();
    run_fresh_watched(
        &mut plan,
        BENCH_DT,
        |o| {
            let mut row = BenchRow::of(o);
            if let (Some(g), None) = (cfg.cache_model, &row.skipped) {
                row.model = model_row(o.settings(), g, &mut models);
            }
            progress(&row);
            rows.push(row);
        },
        on_visit,
    );
    // Rows finish out of order (a skipped one at once, measured ones after
    // their last round): put them back in the plan's order. One row per
    // final outcome, as `run_fresh` reports each once.
    debug_assert_eq!(rows.len(), plan.finals_len());
    let mut ordered: Vec<(usize, BenchRow)> = plan.final_variants().into_iter().zip(rows).collect();
    ordered.sort_by_key(|(variant, _)| *variant);
    ordered.into_iter().map(|(_, row)| row).collect()
}

impl BenchRow {
    /// " (busy: frames spread 2.1x)" when the counted frames' totals differ
    /// by more than [`crate::measure::BUSY_SPREAD`]; empty otherwise.
    fn busy(&self) -> String {
        let (lo, hi) = (
            self.min_ms.unwrap_or_default().total,
            self.max_ms.unwrap_or_default().total,
        );
        if lo > 0.0 && hi / lo > crate::measure::BUSY_SPREAD {
            format!(
                " (busy: frames spread {:.1}x; run again for numbers to keep)",
                hi / lo
            )
        } else {
            String::new()
        }
    }

    /// One line of live progress for stderr: the label (every key that tells
    /// rows apart: units, unit order, layout, pass, strategy, kernel,
    /// threads, cell size), then the total and query medians and the
    /// neighbors, or why the row was skipped; a row measured over fewer
    /// frames says so.
    pub fn progress_line(&self) -> String {
        let head = format!("  {}", self.label);
        match &self.skipped {
            Some(why) => format!("{head}: skipped, {why}"),
            None => format!(
                "{head}: total {:.3} ms (min {:.3}, max {:.3}), query {:.3} ms, {} neighbors{}{}{}",
                self.ms().total,
                self.min_ms.unwrap_or_default().total,
                self.max_ms.unwrap_or_default().total,
                self.ms().query,
                thousands(self.neighbors),
                if self.deaths > 0 {
                    format!(", {} deaths and spawns", thousands(self.deaths))
                } else {
                    String::new()
                },
                self.note
                    .as_ref()
                    .map_or(String::new(), |n| format!(" ({n})")),
                self.busy()
            ),
        }
    }
}

/// The reference row for speedups: Naive with the Scalar kernel (or none,
/// through AoS), the same units, order, layout and pass, and 1 thread.
fn reference<'a>(rows: &'a [BenchRow], row: &BenchRow) -> Option<&'a BenchRow> {
    rows.iter().find(|r| {
        r.settings.units == row.settings.units
            && r.settings.reorder == row.settings.reorder
            && r.settings.layout == row.settings.layout
            && r.settings.pass == row.settings.pass
            && r.settings.strategy == Strategy::Naive
            && matches!(r.kernel(), Some(Kernel::Scalar) | None)
            && r.settings.threads == 1
    })
}

/// The speedup of `row` over the reference `base` in one phase (`pick`),
/// as a verdict from their rounds ([`crate::measure::verdict`]): "58x
/// faster (52–63x)", "1.3x slower (1.2–1.4x)", "no faster or slower beyond
/// this machine's noise (0.91–1.20x the other's time)", or the ratio with "1 round" where the
/// rounds are too few for a verdict; "~58x (vs an estimate)" against an
/// estimated reference; "reference" on the reference row; "-" without one.
fn speedup(base: Option<&BenchRow>, row: &BenchRow, pick: fn(&PhaseMs) -> f64) -> String {
    use crate::measure::verdict::{judge, ratio_text, Basis, Words};
    let Some(b) = base else {
        return "-".to_string();
    };
    if b.skipped.is_some() {
        return match b.estimated_total_ms {
            Some(e) if pick(&row.ms()) > 0.0 => {
                format!("~{}x (vs an estimate)", ratio_text(e / pick(&row.ms())))
            }
            _ => "-".to_string(),
        };
    }
    if std::ptr::eq(b, row) {
        return "reference".to_string();
    }
    let rounds =
        |r: &BenchRow| -> Vec<f64> { r.rounds.iter().map(|x| pick(&x.median_ms)).collect() };
    match judge(&rounds(row), &rounds(b), false) {
        Some(j) if j.basis == Basis::TooFewRounds => {
            let n = j.rounds_a.min(j.rounds_b);
            let n = crate::format::counted(n, "round");
            format!("{}x ({n})", ratio_text(1.0 / j.ratio))
        }
        Some(j) => j.phrase(Words::Time),
        None => "-".to_string(),
    }
}

/// The kernel column: its key, or `–` where the query runs none.
fn kernel_cell(kernel: Option<Kernel>) -> &'static str {
    kernel.map_or("–", Kernel::key)
}

/// Renders rows as a Markdown table with speedups over Naive/Scalar (1 thread)
/// of the same unit count, reorder mode, layout and pass, each a verdict
/// from the rounds (`speedup`; a ratio against an estimated naive time is
/// marked `~`), then a line saying what the verdicts rest on. The cell
/// column is the grid cell edge (world units; `-` for Naive), the kernel
/// `–` where the query runs none; a time is the median of the round
/// medians, with their range in brackets when there are 2 rounds or more.
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
        // The columns that name the combination, the same for every row.
        let head = format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.settings.units,
            r.settings.reorder.key(),
            r.settings.layout.key(),
            r.settings.pass.key(),
            r.settings.strategy.key(),
            kernel_cell(r.kernel()),
            r.settings.threads,
            r.cell_size.map_or("-".to_string(), length)
        );
        if let Some(why) = &r.skipped {
            s += &format!("{head} skipped: {why} | | | | | | | | |\n");
            continue;
        }
        let base = reference(rows, r);
        let ms = |pick: fn(&PhaseMs) -> f64| {
            let v = format!("{:.3}", pick(&r.ms()));
            match (r.rounds.len(), r.round_min_ms, r.round_max_ms) {
                (n, Some(lo), Some(hi)) if n >= 2 => {
                    format!("{v} ({:.3}-{:.3})", pick(&lo), pick(&hi))
                }
                _ => v,
            }
        };
        s += &format!(
            "{head} {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            ms(|p| p.move_),
            ms(|p| p.rebuild),
            ms(|p| p.query),
            ms(|p| p.apply),
            ms(|p| p.total),
            r.candidates,
            r.neighbors,
            speedup(base, r, |p| p.query),
            speedup(base, r, |p| p.total),
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
    s + &table_notes(rows)
}

/// The lines under the table: what the speedup verdicts rest on, and every
/// row whose frames a guard cut.
fn table_notes(rows: &[BenchRow]) -> String {
    let rounds = rows.iter().map(|r| r.rounds.len()).max().unwrap_or(0);
    let mut s = if rounds == 0 {
        "\nEvery row was skipped: nothing was measured (each row says why).\n".to_string()
    } else if rounds >= crate::measure::verdict::MIN_ROUNDS {
        format!(
            "\nTimes are medians of {rounds} round medians (their range in brackets); the rounds visited the rows in turn. A speedup names a direction only where the two rows' rounds do not overlap (by chance, with nothing different: {:.1}%); otherwise it says the difference is within this machine's noise.\n",
            100.0 * crate::measure::verdict::separation_chance(rounds, rounds)
        )
    } else {
        format!(
            "\nOne measurement per row ({}): the speedups are ratios, not verdicts. Run with --rounds 5 for verdicts (a direction only where the rows' rounds do not overlap).\n",
            crate::format::counted(rounds, "round")
        )
    };
    for r in rows {
        if r.frames > 0 && r.frames < r.planned_frames {
            s += &format!(
                "- {}: {} of {} frames per round ({})\n",
                r.label,
                r.frames,
                r.planned_frames,
                r.note.as_deref().unwrap_or("a guard cut them")
            );
        } else if let Some(note) = r.note.as_deref().filter(|n| n.contains(" raised to ")) {
            s += &format!("- {}: {note}\n", r.label);
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
