//! `spatial-query-lab bench`: the headless benchmark of the standard
//! workloads (`docs/workloads.md`), Markdown or JSON on stdout, progress
//! on stderr.

use std::io::Write;
use std::process::ExitCode;

use clap::ArgMatches;

use spatial_query_lab::bench::{self, BenchConfig};
use spatial_query_lab::machine::Machine;
use spatial_query_lab::sim::STANDARD_RADIUS;
use spatial_query_lab::spatial::{Kernel, Strategy};

use super::output::try_print;
use super::{given, load_scenario, or_all, unique, BenchArgs, Format};

/// Runs `bench` with the flags `b` (and their matches `m`, for the
/// scenario overrides); returns the exit code.
pub(crate) fn run(b: BenchArgs, m: &ArgMatches) -> ExitCode {
    let mut cfg = BenchConfig {
        units: unique(b.units),
        frames: b.frames as usize,
        rounds: b.rounds,
        warmup: b.warmup as usize,
        seed: b.seed,
        workload: b.workload,
        threads: unique(b.threads),
        strategies: or_all(unique(b.strategies), &Strategy::ALL),
        kernels: or_all(unique(b.kernels), Kernel::native()),
        reorders: unique(b.reorder),
        reorder_every: b.reorder_every,
        layouts: unique(b.layouts),
        passes: unique(b.pass),
        cell_sizes: or_all(unique(b.cell_sizes), &[STANDARD_RADIUS]),
        skip_above_s: b.skip_above,
        separation: b.separation,
        radius: b.radius,
        world: b.world,
    };
    // A scenario that cannot be read is the only line on stderr.
    let scenario = match &b.scenario {
        Some(path) => match load_scenario(path) {
            Ok(sc) => Some((path, sc)),
            Err(code) => return code,
        },
        None => None,
    };
    // Then first, so that every saved log and every pasted table says where
    // its numbers came from (each JSON row names the machine too).
    let _ = writeln!(
        std::io::stderr(),
        "bench: machine: {}",
        Machine::current().summary()
    );
    if let Some((path, sc)) = scenario {
        if let (Some(v), false) = (sc.units, given(m, "units")) {
            cfg.units = vec![v];
        }
        if let (Some(v), false) = (sc.workload, given(m, "workload")) {
            cfg.workload = v;
        }
        if let (Some(v), false) = (sc.seed, given(m, "seed")) {
            cfg.seed = v;
        }
        if !given(m, "world") {
            cfg.world = sc.world;
        }
        if let (Some(v), false) = (sc.radius, given(m, "radius")) {
            cfg.radius = v;
        }
        if !given(m, "cell_sizes") {
            cfg.cell_sizes = vec![sc.cell_size.unwrap_or(cfg.radius)];
        }
        // The engine values the file names replace their lists with one
        // value each, unless their flag was given. A kernel this CPU cannot
        // run is kept: its rows say skipped, as with `--kernels`.
        if let (Some(v), false) = (sc.strategy, given(m, "strategies")) {
            cfg.strategies = vec![v];
        }
        if let (Some(v), false) = (sc.kernel, given(m, "kernels")) {
            cfg.kernels = vec![v];
        }
        if let (Some(v), false) = (sc.threads, given(m, "threads")) {
            cfg.threads = vec![v];
        }
        if let (Some(v), false) = (sc.layout, given(m, "layouts")) {
            cfg.layouts = vec![v];
        }
        if let (Some(v), false) = (sc.reorder, given(m, "reorder")) {
            cfg.reorders = vec![v];
        }
        if let (Some(v), false) = (sc.reorder_every, given(m, "reorder_every")) {
            cfg.reorder_every = v;
        }
        if let (Some(v), false) = (sc.pass, given(m, "pass")) {
            cfg.passes = vec![v];
        }
        let _ = writeln!(
            std::io::stderr(),
            "bench: scenario {} ({})",
            sc.name,
            path.display()
        );
        // What the window uses and bench does not: say so, not silently.
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
            let _ = writeln!(
                std::io::stderr(),
                "bench: the scenario's {list}: the window's, not used here; bench times at real-time speed with steering as --separation says (default off)"
            );
        }
    } else if !given(m, "cell_sizes") && given(m, "radius") {
        // The cell follows the radius unless the sizes are given.
        cfg.cell_sizes = vec![cfg.radius];
    }
    if let Some(world) = cfg.world {
        // As the window does: a cell below the grid's cap over this world
        // is raised to the smallest used as given, not doubled by the grid.
        let min = spatial_query_lab::spatial::min_cell_for_extent(world);
        for c in &mut cfg.cell_sizes {
            if *c < min {
                let _ = writeln!(
                    std::io::stderr(),
                    "bench: cell size {c} is below the smallest a grid of at most 1,048,576 cells allows over a world {world} units wide; raised to {min:.2}"
                );
                *c = min;
            }
        }
        cfg.cell_sizes = unique(std::mem::take(&mut cfg.cell_sizes));
    }
    let _ = writeln!(
        std::io::stderr(),
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
    let _ = match spatial_query_lab::sim::counters::CacheCounters::open(None) {
        Ok(c) => writeln!(
            std::io::stderr(),
            "bench: hardware cache counters: L1D read misses and {} of the query phase",
            c.llc_event()
        ),
        Err(why) => writeln!(
            std::io::stderr(),
            "bench: hardware cache counters unavailable ({why}); their JSON fields are null"
        ),
    };
    // Progress goes to stderr; a closed stderr (`2>&1 | head`) must not end the run.
    // A thread count the OS refuses is said once, before its first row.
    let mut refused = Vec::new();
    let rows = bench::run(&cfg, |r| {
        if let (Some(why), false) = (&r.threads_refused, refused.contains(&r.threads)) {
            refused.push(r.threads);
            let _ = writeln!(
                std::io::stderr(),
                "bench: the OS refused to start {} threads ({why}); their rows are skipped, not run on fewer threads",
                r.threads
            );
        }
        let _ = writeln!(std::io::stderr(), "{}", r.progress_line());
    });
    let mut text = match b.format {
        Format::Markdown => bench::to_markdown(&rows),
        Format::Json => match serde_json::to_string_pretty(&rows) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: could not encode the results as JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    if b.roofline {
        let table = bench::roofline::table(&rows);
        match b.format {
            Format::Markdown => {
                text.push_str(&format!("\nRoofline of the sorted-grid rows\n\n{table}"))
            }
            Format::Json => {
                let _ = write!(std::io::stderr(), "\n{table}");
            }
        }
    }
    try_print!(super::output::print(&text));
    ExitCode::SUCCESS
}
