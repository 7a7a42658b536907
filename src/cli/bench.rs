//! `spatial-query-lab bench`: the headless benchmark of the standard
//! workloads (`docs/workloads.md`), Markdown or JSON on stdout, progress
//! on stderr.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::ArgMatches;

use spatial_query_lab::bench::{self, BenchConfig, BenchRow};
use spatial_query_lab::engine::spatial::{Kernel, Strategy};
use spatial_query_lab::measure::machine::Machine;
use spatial_query_lab::settings::scenario::Scenario;

use super::output::try_print;
use super::{given, load_scenario, or_all, unique, BenchArgs, Format};

/// Writes one progress line to stderr; a closed stderr (`2>&1 | head`)
/// must not end the run, so a failed write is ignored.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Runs `bench` with the flags `b` (and their matches `m`, for the
/// scenario overrides); returns the exit code.
pub(crate) fn run(b: BenchArgs, m: &ArgMatches) -> ExitCode {
    // A scenario that cannot be read is the only line on stderr.
    let scenario = match &b.scenario {
        Some(path) => match load_scenario(path) {
            Ok(sc) => Some((path.as_path(), sc)),
            Err(code) => return code,
        },
        None => None,
    };
    // The machine first, so that every saved log and every pasted table
    // says where its numbers came from (each JSON row names it too).
    say!("bench: machine: {}", Machine::current().summary());
    if let Some((path, sc)) = &scenario {
        say_scenario(path, sc);
    }
    let file = scenario.map(|(_, sc)| sc).unwrap_or_default();
    let cfg = raise_small_cells(config(&b, m, &file));
    say_config(&cfg);
    say_counters();
    let rows = run_rows(&cfg);
    let text = match render(&rows, b.format, b.roofline) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: could not encode the results as JSON: {e}");
            return ExitCode::FAILURE;
        }
    };
    try_print!(super::output::print(&text));
    ExitCode::SUCCESS
}

/// `flag`'s value (its default when it was not given) unless it was not
/// given and the scenario names a value: then the scenario's.
fn one<T>(given: bool, flag: T, file: Option<T>) -> T {
    match file {
        Some(v) if !given => v,
        _ => flag,
    }
}

/// `flag`'s list (its default when it was not given) unless it was not
/// given and the scenario names a value: then that value alone.
fn list<T>(given: bool, flag: Vec<T>, file: Option<T>) -> Vec<T> {
    one(given, flag, file.map(|v| vec![v]))
}

/// The benchmark's configuration as one merge: bench's defaults, then the
/// scenario `file`'s values (an engine value replaces its list with one
/// value), then the flags given in `m`. A kernel this CPU cannot run is
/// kept: its rows say skipped, as with `--kernels`. The cell follows the
/// radius unless the sizes are given or the file names one. Allocates the
/// lists.
fn config(b: &BenchArgs, m: &ArgMatches, file: &Scenario) -> BenchConfig {
    let g = |id: &str| given(m, id);
    let radius = one(g("radius"), b.radius, file.radius);
    let cell = file.cell_size.unwrap_or(radius);
    BenchConfig {
        units: list(g("units"), unique(b.units.clone()), file.units),
        frames: b.frames as usize,
        rounds: b.rounds,
        cache_model: b.cache_model.0,
        warmup: b.warmup as usize,
        seed: one(g("seed"), b.seed, file.seed),
        workload: one(g("workload"), b.workload, file.workload),
        threads: list(g("threads"), unique(b.threads.clone()), file.threads),
        strategies: list(
            g("strategies"),
            or_all(unique(b.strategies.clone()), &Strategy::ALL),
            file.strategy,
        ),
        kernels: list(
            g("kernels"),
            or_all(unique(b.kernels.clone()), Kernel::native()),
            file.kernel,
        ),
        reorders: list(g("reorder"), unique(b.reorder.clone()), file.reorder),
        reorder_every: one(g("reorder_every"), b.reorder_every, file.reorder_every),
        layouts: list(g("layouts"), unique(b.layouts.clone()), file.layout),
        passes: list(g("pass"), unique(b.pass.clone()), file.pass),
        cell_sizes: list(g("cell_sizes"), unique(b.cell_sizes.clone()), Some(cell)),
        skip_above_s: b.skip_above,
        separation: b.separation,
        radius,
        world: b.world.or(file.world),
    }
}

/// Names the scenario on stderr, and the values it sets that only the
/// window uses (so they are not dropped without a word).
fn say_scenario(path: &Path, sc: &Scenario) {
    say!("bench: scenario {} ({})", sc.name, path.display());
    let window_only: Vec<&str> = [
        ("speed", sc.speed.is_some()),
        ("separation", sc.separation.is_some()),
        ("paused", sc.paused.is_some()),
        ("view values", sc.view != Default::default()),
    ]
    .into_iter()
    .filter_map(|(f, set)| set.then_some(f))
    .collect();
    if let Some((last, rest)) = window_only.split_last() {
        let list = match rest {
            [] => last.to_string(),
            _ => format!("{} and {last}", rest.join(", ")),
        };
        say!("bench: the scenario's {list}: the window's, not used here; bench times at real-time speed with steering as --separation says (default off)");
    }
}

/// `cfg` with every cell size below the grid's cap over its world raised
/// to the smallest one allowed, as the window does (not doubled by the
/// grid), said on stderr; the sizes stay unique.
fn raise_small_cells(mut cfg: BenchConfig) -> BenchConfig {
    let Some(world) = cfg.world else {
        return cfg;
    };
    let min = spatial_query_lab::engine::spatial::min_cell_for_extent(world);
    for c in &mut cfg.cell_sizes {
        if *c < min {
            say!("bench: cell size {c} is below the smallest a grid of at most 1,048,576 cells allows over a world {world} units wide; raised to {min:.2}");
            *c = min;
        }
    }
    cfg.cell_sizes = unique(std::mem::take(&mut cfg.cell_sizes));
    cfg
}

/// The configuration's line on stderr: workload, radius, world, steering,
/// the lists, frames, rounds and seed.
fn say_config(cfg: &BenchConfig) {
    say!(
        "bench: {} workload, radius {}, world {}, {}, units {:?}, threads {:?}, cell sizes {:?}, {} frames after {} warm-up, {} round(s), seed {}",
        cfg.workload,
        cfg.radius,
        cfg.world
            .map_or_else(|| "standard density".to_string(), |w| format!("{w} x {w}")),
        if cfg.separation > 0.0 {
            format!("separation {} (steering on: crowds relax while timed)", cfg.separation)
        } else {
            "steering off".to_string()
        },
        cfg.units,
        cfg.threads,
        cfg.cell_sizes,
        cfg.frames,
        cfg.warmup,
        cfg.rounds,
        cfg.seed,
    );
}

/// Says on stderr whether the hardware cache counters can be read here.
fn say_counters() {
    match spatial_query_lab::platform::counters::CacheCounters::open(None) {
        Ok(c) => say!(
            "bench: hardware cache counters: L1D read misses and {} of the query phase",
            c.llc_event()
        ),
        Err(why) => {
            say!("bench: hardware cache counters unavailable ({why}); their JSON fields are null")
        }
    }
}

/// Runs every row of `cfg` ([`bench::run`]) with a progress line per row on
/// stderr; a thread count the OS refuses is said once, before its first row.
fn run_rows(cfg: &BenchConfig) -> Vec<BenchRow> {
    let mut refused = Vec::new();
    bench::run(cfg, |r| {
        if let (Some(why), false) = (&r.threads_refused, refused.contains(&r.threads)) {
            refused.push(r.threads);
            say!(
                "bench: the OS refused to start {} threads ({why}); their rows are skipped, not run on fewer threads",
                r.threads
            );
        }
        say!("{}", r.progress_line());
    })
}

/// The rows as stdout's text: the Markdown table with the machine it was
/// measured on, or pretty JSON (each row names its machine), with the
/// roofline table of the sorted-grid rows after the Markdown (on stderr
/// beside JSON, which stays one document). Errors: JSON encoding's.
fn render(rows: &[BenchRow], format: Format, roofline: bool) -> Result<String, serde_json::Error> {
    let mut text = match format {
        Format::Markdown => format!(
            "{}
Machine: {}
",
            bench::to_markdown(rows),
            Machine::current().summary()
        ),
        Format::Json => serde_json::to_string_pretty(rows)? + "\n",
    };
    if roofline {
        let table = bench::roofline::table(rows);
        match format {
            Format::Markdown => {
                text.push_str(&format!("\nRoofline of the sorted-grid rows\n\n{table}"))
            }
            Format::Json => {
                let _ = write!(std::io::stderr(), "\n{table}");
            }
        }
    }
    Ok(text)
}
