//! `spatial-query-lab bench`: the headless benchmark of the standard
//! workloads (`docs/workloads.md`), Markdown or JSON on stdout, progress
//! on stderr. Its setting flags come from the settings table
//! ([`BenchSettingFlags`]); the others (frames, rounds, the output) are
//! the benchmark's own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use crate::bench::{self, BenchConfig, BenchRow};
use crate::measure::machine::Machine;
use crate::settings::flags::{unique, BenchSettingFlags};
use crate::settings::rows::{BenchFlag, Section, ROWS};
use crate::settings::scenario::Scenario;
use crate::settings::view::Geometry;
use crate::try_print;

/// Output format of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A Markdown table, the machine named under it (`md` as `lesson` names it).
    #[value(alias = "md")]
    Markdown,
    /// A JSON array of rows, each naming its machine.
    Json,
}

/// A cache model geometry or none: `machine`, `classroom` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheModelChoice(pub Option<Geometry>);

/// `--cache-model`'s value: a geometry's key, or `off`.
fn parse_cache_model(s: &str) -> Result<CacheModelChoice, String> {
    use crate::named::Named;
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(CacheModelChoice(None));
    }
    Geometry::parse(s)
        .map(|g| CacheModelChoice(Some(g)))
        .ok_or_else(|| "expected machine, classroom or off".to_string())
}

/// A whole number from `lo` to `hi` (`_` separators allowed).
fn whole(s: &str, lo: u64, hi: u64, what: &str) -> Result<u64, String> {
    match s.trim().replace('_', "").parse::<u64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected a whole number of {what} from {lo} to {}",
            crate::format::thousands(hi)
        )),
    }
}

/// Counted frames: 1 to 1,000,000,000.
fn parse_frames(s: &str) -> Result<usize, String> {
    whole(s, 1, 1_000_000_000, "frames").map(|v| v as usize)
}

/// Warm-up frames: 0 to 1,000,000.
fn parse_warmup(s: &str) -> Result<usize, String> {
    whole(s, 0, 1_000_000, "frames").map(|v| v as usize)
}

/// Rounds of a measurement: 1 to 50.
pub fn parse_rounds(s: &str) -> Result<usize, String> {
    whole(s, 1, 50, "rounds").map(|v| v as usize)
}

/// Seconds, finite and above 0.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("must be a finite number of seconds > 0, got {v}")),
        Err(_) => Err("expected a number".to_string()),
    }
}

/// `bench`'s flags: the setting flags of the settings table, then its own.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Take every engine setting a scenario file (TOML) names: units, workload, seed, world, radius, cell size, and strategy, kernel, threads, layout, reorder, reorder-every and pass (each replacing its list with one value); flags given next to it override them. Speed, separation, paused and the view values are the window's: steering stays as --separation says.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// The setting flags (every engine row of the settings table with a bench flag).
    #[command(flatten)]
    pub settings: BenchSettingFlags,
    /// Counted frames per combination and round (the median is reported).
    #[arg(long, default_value_t = BenchConfig::default().frames, value_parser = parse_frames)]
    pub frames: usize,
    /// Rounds, 1 to 50 (--repeats is the same flag): every combination is measured once per round, visiting the combinations in turn (A B C A B C ...) so they share the machine's drift; rows report the median of the round medians with their range, and the speedup columns are verdicts (a direction only when the rounds' ranges separate; at least 3 rounds).
    #[arg(long, alias = "repeats", value_name = "R", default_value_t = BenchConfig::default().rounds, value_parser = parse_rounds)]
    pub rounds: usize,
    /// Warm-up frames per combination (0 to 1,000,000).
    #[arg(long, default_value_t = BenchConfig::default().warmup, value_parser = parse_warmup)]
    pub warmup: usize,
    /// After the table, measure this machine's memory bandwidth (a 256 MiB copy) and the fused kernel's cost per candidate test, and print how close each phase of every sorted-grid row comes to them (the roofline; Markdown, to stdout, or to stderr with --format json).
    #[arg(long)]
    pub roofline: bool,
    /// Model each measured row's query phase with a set-associative LRU cache (the row's `model` in the JSON; the same counts on every machine for the same settings): machine (this machine's L1d, L2 and last-level cache sizes and ways), classroom (32 KiB / 512 KiB / 8 MiB, the same everywhere) or off.
    #[arg(long = "cache-model", value_name = "GEOMETRY", value_parser = parse_cache_model, default_value = "machine")]
    pub cache_model: CacheModelChoice,
    /// Skip a combination whose estimated frame time exceeds this many seconds (finite, > 0); one estimated above a twentieth of it times only its last 3 frames.
    #[arg(long = "skip-above", default_value_t = BenchConfig::default().skip_above_s, value_parser = parse_seconds)]
    pub skip_above: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
}

/// Writes one progress line to stderr; a closed stderr (`2>&1 | head`)
/// must not end the run, so a failed write is ignored.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Runs `bench` with the flags `b`; returns the exit code (2 after one
/// line when the scenario cannot be read, 1 when the output cannot be
/// written).
pub fn run(b: BenchArgs) -> ExitCode {
    // A scenario that cannot be read is the only line on stderr.
    let scenario = match &b.scenario {
        Some(path) => match crate::settings::scenario::bundled::resolve(path) {
            Ok(sc) => Some((path.as_path(), sc)),
            Err(e) => {
                eprintln!("error: --scenario: {e}");
                return ExitCode::from(2);
            }
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
    let cfg = raise_small_cells(config(&b, &file));
    say_config(&cfg);
    say_oversubscribed(&cfg.lists.threads, Machine::current().cores);
    say_counters();
    let rows = run_rows(&cfg);
    let text = match render(&rows, b.format, b.roofline) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: could not encode the results as JSON: {e}");
            return ExitCode::FAILURE;
        }
    };
    try_print!(crate::platform::stdout::print(&text));
    ExitCode::SUCCESS
}

/// The benchmark's configuration as one merge: bench's defaults, then the
/// scenario `file`'s values (an engine value replaces its list with one
/// value), then the flags given ([`BenchSettingFlags::merge`]). A kernel
/// this CPU cannot run is kept: its rows say skipped, as with `--kernels`.
/// Allocates the lists.
fn config(b: &BenchArgs, file: &Scenario) -> BenchConfig {
    let (settings, lists) = b.settings.merge(file);
    BenchConfig {
        settings,
        lists,
        frames: b.frames,
        rounds: b.rounds,
        warmup: b.warmup,
        skip_above_s: b.skip_above,
        cache_model: b.cache_model.0,
    }
}

/// Names the scenario on stderr, and the values it sets that only the
/// window uses (so they are not dropped without a word).
fn say_scenario(path: &Path, sc: &Scenario) {
    say!("bench: scenario {} ({})", sc.name, path.display());
    // The engine values bench takes no file value for (no flag, or a
    // default of its own), then the view values, which only the window has.
    let named = sc.named();
    let mut window_only: Vec<&str> = ROWS
        .iter()
        .filter(|r| r.section == Section::Engine)
        .filter(|r| matches!(r.bench, BenchFlag::None | BenchFlag::Own))
        .filter(|r| named.contains(&r.key))
        .map(|r| r.key)
        .collect();
    if sc.view != Default::default() {
        window_only.push("view values");
    }
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
    let Some(world) = cfg.settings.world else {
        return cfg;
    };
    let min = crate::engine::spatial::min_cell_for_extent(world);
    for c in &mut cfg.lists.cell_size {
        if *c < min {
            say!("bench: cell size {c} is below the smallest a grid of at most 1,048,576 cells allows over a world {world} units wide; raised to {min:.2}");
            *c = min;
        }
    }
    cfg.lists.cell_size = unique(std::mem::take(&mut cfg.lists.cell_size));
    cfg
}

/// The configuration's line on stderr: workload, radius, world, steering,
/// the lists, frames, rounds and seed.
fn say_config(cfg: &BenchConfig) {
    let s = &cfg.settings;
    say!(
        "bench: {} workload, radius {}, world {}, {}, units {:?}, threads {:?}, cell sizes {:?}, {} frames after {} warm-up, {} round(s), seed {}",
        s.workload,
        s.radius,
        s.world
            .map_or_else(|| "standard density".to_string(), |w| format!("{w} x {w}")),
        if s.separation > 0.0 {
            format!("separation {} (steering on: crowds relax while timed)", s.separation)
        } else {
            "steering off".to_string()
        },
        cfg.lists.units,
        cfg.lists.threads,
        cfg.lists.cell_size,
        cfg.frames,
        cfg.warmup,
        cfg.rounds,
        s.seed,
    );
}

/// Says on stderr which thread counts exceed the logical CPUs this
/// process may run on: their threads take turns on the cores, so their rows
/// time the sharing as well as the work.
fn say_oversubscribed(threads: &[usize], cores: usize) {
    if let Some(line) = oversubscribed(threads, cores) {
        say!("{line}");
    }
}

/// The line of [`say_oversubscribed`], `None` when every count fits.
fn oversubscribed(threads: &[usize], cores: usize) -> Option<String> {
    let over: Vec<String> = threads
        .iter()
        .filter(|&&t| t > cores)
        .map(|t| t.to_string())
        .collect();
    (!over.is_empty()).then(|| {
        format!(
            "bench: {} thread(s) on {cores} logical CPU(s): the threads take turns on the cores, so those rows time the sharing as well as the work",
            over.join(", ")
        )
    })
}

/// Says on stderr whether the hardware cache counters can be read here.
fn say_counters() {
    match crate::platform::counters::CacheCounters::open(None) {
        Ok(c) => say!(
            "bench: hardware cache counters: L1D read misses and {} of the query phase",
            c.llc_event()
        ),
        Err(why) => {
            say!("bench: hardware cache counters unavailable ({why}); their JSON fields are null")
        }
    }
}

/// Runs every row of `cfg` ([`bench::run_watched`]) with a line on stderr
/// as each visit begins (percent done, the row, the round) and one as each
/// row is done; a thread count the OS refuses is said once, before its
/// first row.
fn run_rows(cfg: &BenchConfig) -> Vec<BenchRow> {
    let mut refused = Vec::new();
    let visit = |done: f64, what: &str| say!("  {:3.0}% {what}", done * 100.0);
    bench::run_watched(
        cfg,
        |r| {
            if let (Some(why), false) = (&r.threads_refused, refused.contains(&r.settings.threads))
            {
                refused.push(r.settings.threads);
                say!(
                "bench: the OS refused to start {} threads ({why}); their rows are skipped, not run on fewer threads",
                r.settings.threads
            );
            }
            say!("{}", r.progress_line());
        },
        visit,
    )
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

#[cfg(test)]
mod tests {
    use super::oversubscribed;

    #[test]
    fn thread_counts_above_the_cpus_are_named() {
        assert_eq!(oversubscribed(&[1, 2], 2), None);
        let line = oversubscribed(&[1, 3, 8], 2).expect("3 and 8 exceed 2");
        assert!(
            line.starts_with("bench: 3, 8 thread(s) on 2 logical CPU(s)"),
            "{line}"
        );
    }
}
