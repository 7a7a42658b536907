//! `spatial-query-lab`: the visualizer window, or a headless mode.
//!
//! - `spatial-query-lab [--units N] [--radius R] [--cell-size C] [--seed S] ...` opens the window;
//! - `spatial-query-lab --screenshot PATH [--frames N]` renders N frames, writes a PNG and exits;
//! - `spatial-query-lab bench [...]` runs the headless benchmark.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use spatial_query_lab::alloc_count::CountingAlloc;
use spatial_query_lab::app::{self, AppOptions};
use spatial_query_lab::bench::{self, BenchConfig};
use spatial_query_lab::render::{ColorMode, NormalPrecision, UnitMeshKind, VertexLayout};
use spatial_query_lab::scenario::{Scenario, MAX_UNITS};
use spatial_query_lab::sim::{Layout, Pass, Reorder, Settings, Workload, STANDARD_RADIUS};
use spatial_query_lab::spatial::{validate_cell_size, validate_radius, Kernel, Strategy};

/// Counts allocations so the overlay can show allocations per frame.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[derive(Parser, Debug)]
#[command(
    name = "spatial-query-lab",
    version,
    about = "Real-time visualizer of fixed-radius neighbor queries: naive scan, uniform grid, CSR grid, SIMD kernels, compressed vertex streams.",
    allow_negative_numbers = true,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    window: WindowArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Headless benchmark of every strategy x kernel x thread count on a standard workload.
    #[command(allow_negative_numbers = true)]
    Bench(BenchArgs),
    /// Time the unit renderer in a window (run under xvfb-run when headless) for each unit count and vertex layout.
    #[command(name = "render-bench", allow_negative_numbers = true)]
    RenderBench(RenderBenchArgs),
}

#[derive(Args, Debug)]
struct RenderBenchArgs {
    /// Unit counts, comma-separated (each 1 to 1,000,000).
    #[arg(long, value_delimiter = ',', default_values_t = [10_000usize, 50_000, 200_000], value_parser = parse_units)]
    units: Vec<usize>,
    /// Vertex layouts, comma-separated (compressed, uncompressed).
    #[arg(long = "vertex-layouts", value_delimiter = ',', value_parser = parse_vertex_layout, default_value = "compressed,uncompressed")]
    vertex_layouts: Vec<VertexLayout>,
    /// Timed frames per combination (the median is reported; 1 to 10,000).
    #[arg(long, default_value_t = 30, value_parser = parse_render_frames)]
    frames: u32,
    /// Untimed frames before them (0 to 1,000).
    #[arg(long, default_value_t = 3, value_parser = parse_render_warmup)]
    warmup: u32,
    /// Spawn seed (a whole number from 0 to 18446744073709551615).
    #[arg(long, default_value_t = 42, value_parser = parse_seed)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
}

#[derive(Args, Debug)]
struct WindowArgs {
    /// Load a scenario file (TOML, e.g. assets/scenarios/battle.toml); flags given next to it override its values.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// World edge in world units, 1 to 1,000,000 (default: the standard density for the unit count, 16 neighbors per unit).
    #[arg(long, value_name = "L", value_parser = parse_world)]
    world: Option<f32>,
    /// Number of units (1 to 1,000,000).
    #[arg(long, default_value_t = 10_000, value_parser = parse_units)]
    units: usize,
    /// Query radius in world units (finite, > 0).
    #[arg(long, default_value_t = 10.0, value_parser = parse_radius)]
    radius: f32,
    /// Grid cell size in world units (finite, > 0; default: equal to the radius, and following it).
    #[arg(long = "cell-size", value_parser = parse_cell)]
    cell_size: Option<f32>,
    /// Spawn seed (a whole number from 0 to 18446744073709551615).
    #[arg(long, default_value_t = 42, value_parser = parse_seed)]
    seed: u64,
    /// Initial positions.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Uniform)]
    workload: WorkloadArg,
    /// Initial strategy: naive, grid or sorted-grid.
    #[arg(long, value_parser = parse_strategy, default_value = "grid")]
    strategy: Strategy,
    /// Initial kernel: scalar, sse, avx2, avx512 (x86_64) or neon (ARM) (default: the widest this CPU supports).
    #[arg(long, value_parser = parse_kernel)]
    kernel: Option<Kernel>,
    /// Threads for the frame (move, rebuild, query, apply), 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = parse_threads)]
    threads: usize,
    /// Memory order of the units: off, cells (row-major cell order), morton (Z-order of cells) or resident (kept in cell order by SortedGrid's rebuild every frame; SoA only).
    #[arg(long, value_parser = parse_reorder, default_value = "resident")]
    reorder: Reorder,
    /// Frames between reorders (1 to 10,000).
    #[arg(long = "reorder-every", default_value_t = 16, value_parser = parse_reorder_every)]
    reorder_every: u32,
    /// Open the memory view at start (key M): the cache lines one query touches.
    #[arg(long = "memory-view")]
    memory_view: bool,
    /// How the units are stored: aos-pointers, aos, soa or hot-cold.
    #[arg(long, value_parser = parse_layout, default_value = "soa")]
    layout: Layout,
    /// How query results reach the steering: fused (aggregates summed in the kernel, no neighbor lists), collect (neighbor id lists written, then read back) or fused-half (fused, SortedGrid testing each pair once); key P cycles.
    #[arg(long, value_parser = parse_pass, default_value = "fused")]
    pass: Pass,
    /// Render the frames, write a PNG of the screen (overlay included) to PATH and exit.
    #[arg(long, value_name = "PATH")]
    screenshot: Option<PathBuf>,
    /// Select unit ID (0 to units - 1) at start and look at it from close by (its query circle and neighbors are highlighted), as a click would; the camera follows it (key F stops).
    #[arg(long, value_name = "ID")]
    select: Option<u32>,
    /// Exit after N window refreshes (default with --screenshot: 60). Large unit counts draw one picture over several refreshes; the last one is completed before the screenshot.
    #[arg(long, value_name = "N", value_parser = parse_frames)]
    frames: Option<u64>,
    /// Unit colors at start: team, neighbor-heat, memory-order or normal-error (key V cycles).
    #[arg(long, value_name = "MODE", value_parser = parse_color, default_value = "team")]
    color: ColorMode,
    /// Vertex layout of the units: compressed (SNORM16 positions, octahedral normals, 8-byte instances) or uncompressed (f32 vertex and instance streams); key B toggles.
    #[arg(long = "vertex-layout", value_name = "LAYOUT", value_parser = parse_vertex_layout, default_value = "compressed")]
    vertex_layout: VertexLayout,
    /// Unit mesh: tank (built in), infantry or vehicle (assets/infantry.obj, assets/vehicle.obj; a missing or broken file draws the tank with a warning); key U cycles.
    #[arg(long, value_name = "MESH", value_parser = parse_mesh, default_value = "tank")]
    mesh: UnitMeshKind,
    /// Bits per component of the compressed layout's octahedral normals: 16 or 8 (key N toggles).
    #[arg(long = "normal-bits", value_name = "BITS", value_parser = parse_normal_bits, default_value = "16")]
    normal_bits: NormalPrecision,
    /// Start with the cell occupancy heat map on the ground (key O toggles).
    #[arg(long)]
    heatmap: bool,
    /// Start paused: the units stay where they spawned until Space resumes (the index and queries still run). Two runs with the same flags then draw the same picture.
    #[arg(long)]
    paused: bool,
    /// Window size in pixels, WIDTHxHEIGHT (each 1 to 32767; default 1280x800). Windows larger than the GPU's texture or viewport limit are drawn at the limit's resolution.
    #[arg(long = "window-size", value_name = "WxH", value_parser = parse_window_size, default_value = "1280x800")]
    window_size: (i32, i32),
    /// Start the cell-size sweep after the first step, as the overlay's "Cell-size sweep" button (key backslash) does; Grid and SortedGrid only. It takes about 120 steps: with --screenshot, pass e.g. --frames 200 to capture its plot.
    #[arg(long)]
    sweep: bool,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// Take units, workload, seed, world, radius and cell size from a scenario file (TOML); flags given next to it override them. Strategies, kernels, threads and steering stay as the flags say.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// World edge in world units, 1 to 1,000,000 (default: the standard density for each unit count).
    #[arg(long, value_name = "L", value_parser = parse_world)]
    world: Option<f32>,
    /// Query radius in world units (finite, > 0).
    #[arg(long, default_value_t = 10.0, value_parser = parse_radius)]
    radius: f32,
    /// Unit counts, comma-separated (each 1 to 1,000,000).
    #[arg(long, value_delimiter = ',', default_values_t = [1_000usize, 10_000, 100_000], value_parser = parse_units)]
    units: Vec<usize>,
    /// Counted frames per combination (the median is reported).
    #[arg(long, default_value_t = 60, value_parser = parse_frames)]
    frames: u64,
    /// Warm-up frames per combination (0 to 1,000,000).
    #[arg(long, default_value_t = 5, value_parser = parse_warmup)]
    warmup: u64,
    /// Spawn seed (a whole number from 0 to 18446744073709551615).
    #[arg(long, default_value_t = 42, value_parser = parse_seed)]
    seed: u64,
    /// Workload from shared/WORKLOADS.md.
    #[arg(long, value_enum, default_value_t = WorkloadArg::Uniform)]
    workload: WorkloadArg,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize], value_parser = parse_threads)]
    threads: Vec<usize>,
    /// Strategies, comma-separated (naive, grid, sorted-grid). Default: all.
    #[arg(long, value_delimiter = ',', value_parser = parse_strategy)]
    strategies: Vec<Strategy>,
    /// Kernels, comma-separated (scalar, sse, avx2, avx512, neon). Default: those of this architecture (scalar, sse, avx2, avx512 on x86_64; scalar, neon on ARM); one this CPU cannot run is reported as skipped.
    #[arg(long, value_delimiter = ',', value_parser = parse_kernel)]
    kernels: Vec<Kernel>,
    /// Unit memory orders to compare, comma-separated (off, cells, morton, resident).
    #[arg(long, value_delimiter = ',', value_parser = parse_reorder, default_value = "resident")]
    reorder: Vec<Reorder>,
    /// Frames between reorders (1 to 10,000).
    #[arg(long = "reorder-every", default_value_t = 16, value_parser = parse_reorder_every)]
    reorder_every: u32,
    /// Data layouts to compare, comma-separated (aos-pointers, aos, soa, hot-cold).
    #[arg(long, value_delimiter = ',', value_parser = parse_layout, default_value = "soa")]
    layouts: Vec<Layout>,
    /// Passes to compare, comma-separated: fused (the kernel sums what steering needs; no neighbor lists), collect (neighbor id lists written for the whole frame, then read back) and fused-half (fused, SortedGrid testing each pair once and crediting both units).
    #[arg(long, value_delimiter = ',', value_parser = parse_pass, default_value = "fused")]
    pass: Vec<Pass>,
    /// Grid cell sizes to compare, comma-separated, world units (each finite and > 0; default: the radius, 10). Naive has no grid and runs once; each row reports the cell size the grid used.
    #[arg(long = "cell-sizes", value_delimiter = ',', value_parser = parse_cell)]
    cell_sizes: Vec<f32>,
    /// Separation steering while timed, 0 to 5 (default 0: steering off, so clustered and hotspot keep their shape, as shared/WORKLOADS.md asks).
    #[arg(long, default_value_t = 0.0, value_parser = parse_separation)]
    separation: f32,
    /// After the table, measure this machine's memory bandwidth (a 256 MiB copy) and the fused kernel's cost per candidate test, and print how close each phase of every sorted-grid row comes to them (the roofline; Markdown, to stdout, or to stderr with --format json).
    #[arg(long)]
    roofline: bool,
    /// Skip a combination whose estimated frame time exceeds this many seconds (finite, > 0).
    #[arg(long = "skip-above", default_value_t = 10.0, value_parser = parse_seconds)]
    skip_above: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Markdown,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum WorkloadArg {
    Uniform,
    Clustered,
    Hotspot,
    Battle,
}

impl From<WorkloadArg> for Workload {
    fn from(w: WorkloadArg) -> Self {
        match w {
            WorkloadArg::Uniform => Workload::Uniform,
            WorkloadArg::Clustered => Workload::Clustered,
            WorkloadArg::Hotspot => Workload::Hotspot,
            WorkloadArg::Battle => Workload::Battle,
        }
    }
}

fn parse_count(s: &str, max: u64, what: &str) -> Result<u64, String> {
    let v: i128 = s
        .trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("expected a whole number of {what}"))?;
    if v < 1 || v > max as i128 {
        return Err(format!("must be between 1 and {max}"));
    }
    Ok(v as u64)
}

/// `WIDTHxHEIGHT` in pixels, each 1 to 32767 (X11's largest window edge).
fn parse_window_size(s: &str) -> Result<(i32, i32), String> {
    let err =
        || format!("expected WIDTHxHEIGHT in pixels, each 1 to 32767, e.g. 1920x1080 (got {s})");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(err)?;
    let edge = |v: &str| {
        v.trim()
            .parse::<i32>()
            .ok()
            .filter(|v| (1..=32767).contains(v))
    };
    Ok((edge(w).ok_or_else(err)?, edge(h).ok_or_else(err)?))
}

fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| "expected a whole number from 0 to 18446744073709551615".to_string())
}

fn parse_warmup(s: &str) -> Result<u64, String> {
    match s.trim().replace('_', "").parse::<u64>() {
        Ok(v) if v <= 1_000_000 => Ok(v),
        _ => Err("expected a whole number of frames from 0 to 1000000".to_string()),
    }
}

fn parse_units(s: &str) -> Result<usize, String> {
    parse_count(s, MAX_UNITS as u64, "units").map(|v| v as usize)
}

fn parse_frames(s: &str) -> Result<u64, String> {
    parse_count(s, 1_000_000_000, "frames")
}

fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, 256, "threads").map(|v| v as usize)
}

fn parse_float(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .map_err(|_| "expected a number".to_string())
}

fn parse_radius(s: &str) -> Result<f32, String> {
    validate_radius(parse_float(s)?)
}

fn parse_world(s: &str) -> Result<f32, String> {
    match parse_float(s)? {
        v if (1.0..=1_000_000.0).contains(&v) => Ok(v),
        v => Err(format!(
            "must be between 1 and 1000000 world units, got {v}"
        )),
    }
}

fn parse_separation(s: &str) -> Result<f32, String> {
    match parse_float(s)? {
        v if (0.0..=5.0).contains(&v) => Ok(v),
        v => Err(format!("must be between 0 and 5, got {v}")),
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(format!("must be a finite number of seconds > 0, got {v}")),
        Err(_) => Err("expected a number".to_string()),
    }
}

fn parse_cell(s: &str) -> Result<f32, String> {
    validate_cell_size(parse_float(s)?)
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    Strategy::from_key(s).ok_or_else(|| "expected naive, grid or sorted-grid".to_string())
}

fn parse_kernel(s: &str) -> Result<Kernel, String> {
    Kernel::from_key(s).ok_or_else(|| "expected scalar, sse, avx2, avx512 or neon".to_string())
}

fn parse_reorder(s: &str) -> Result<Reorder, String> {
    Reorder::from_key(s).ok_or_else(|| "expected off, cells, morton or resident".to_string())
}

fn parse_color(s: &str) -> Result<ColorMode, String> {
    ColorMode::from_key(s)
        .ok_or_else(|| "expected team, neighbor-heat, memory-order or normal-error".to_string())
}

fn parse_mesh(s: &str) -> Result<UnitMeshKind, String> {
    UnitMeshKind::from_key(s).ok_or_else(|| "expected tank, infantry or vehicle".to_string())
}

fn parse_normal_bits(s: &str) -> Result<NormalPrecision, String> {
    match s.trim() {
        "16" => Ok(NormalPrecision::Oct16),
        "8" => Ok(NormalPrecision::Oct8),
        _ => Err("expected 16 or 8".to_string()),
    }
}

fn parse_vertex_layout(s: &str) -> Result<VertexLayout, String> {
    VertexLayout::from_key(s).ok_or_else(|| "expected compressed or uncompressed".to_string())
}

fn parse_layout(s: &str) -> Result<Layout, String> {
    Layout::from_key(s).ok_or_else(|| "expected aos-pointers, aos, soa or hot-cold".to_string())
}

fn parse_pass(s: &str) -> Result<Pass, String> {
    Pass::from_key(s).ok_or_else(|| "expected collect, fused or fused-half".to_string())
}

fn parse_render_frames(s: &str) -> Result<u32, String> {
    parse_count(s, 10_000, "frames").map(|v| v as u32)
}

fn parse_render_warmup(s: &str) -> Result<u32, String> {
    match s.trim().replace('_', "").parse::<u32>() {
        Ok(v) if v <= 1_000 => Ok(v),
        _ => Err("expected a whole number of frames from 0 to 1000".to_string()),
    }
}

fn parse_reorder_every(s: &str) -> Result<u32, String> {
    parse_count(s, 10_000, "frames").map(|v| v as u32)
}

fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            // One line that names the flag; the full usage is one --help away.
            let text = e.render().to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("error: invalid arguments");
            // Keep clap's list of allowed values, on the same line.
            let allowed = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("[possible values:"))
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            eprintln!("{line}{allowed} (see --help)");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Some(Command::Bench(b)) => {
            let m = matches.subcommand_matches("bench").unwrap_or(&matches);
            run_bench(b, m)
        }
        Some(Command::RenderBench(r)) => run_render_bench(r),
        None => run_window(cli.window, &matches),
    }
}

/// Whether flag `id` (the field's name) was given on the command line, so it
/// overrides a scenario's value.
fn given(m: &ArgMatches, id: &str) -> bool {
    m.try_contains_id(id).unwrap_or(false) && m.value_source(id) == Some(ValueSource::CommandLine)
}

/// How a window flag given on the command line restores its value over a
/// scenario's: (clap id, flag, copy from the flags' settings).
type Override = (&'static str, &'static str, fn(&mut Settings, &Settings));

/// The window's flags that override a scenario's values.
const SCENARIO_FLAGS: [Override; 8] = [
    ("units", "--units", |s, f| s.units = f.units),
    ("workload", "--workload", |s, f| s.workload = f.workload),
    ("seed", "--seed", |s, f| s.seed = f.seed),
    ("world", "--world", |s, f| s.world = f.world),
    ("strategy", "--strategy", |s, f| s.strategy = f.strategy),
    ("threads", "--threads", |s, f| s.threads = f.threads),
    ("radius", "--radius", |s, f| {
        s.radius = f.radius;
        if s.cell_follows_radius {
            s.cell_size = s.radius;
        }
    }),
    ("cell_size", "--cell-size", |s, f| {
        (s.cell_size, s.cell_follows_radius) = (f.cell_size, false)
    }),
];

/// The settings of scenario `sc` applied over `flags` (the window's
/// settings from the command line), except the values whose flags were
/// given (in [`SCENARIO_FLAGS`] order: the cell size after the radius).
fn with_flags(sc: &Scenario, flags: &Settings, m: &ArgMatches) -> Settings {
    let mut s = flags.clone();
    sc.apply(&mut s);
    for (id, _, restore) in SCENARIO_FLAGS {
        if given(m, id) {
            restore(&mut s, flags);
        }
    }
    s
}

/// Loads `--scenario`, or prints its one-line error and returns the exit code.
fn load_scenario(path: &std::path::Path) -> Result<Scenario, ExitCode> {
    Scenario::load(path).map_err(|e| {
        eprintln!("error: --scenario: {e}");
        ExitCode::from(2)
    })
}

/// `v` without repeats, first occurrences in order (`--strategies grid,grid` runs once).
fn unique<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// `v`, or every value when `v` is empty (the flag was not given).
fn or_all<T: Clone>(v: Vec<T>, all: &[T]) -> Vec<T> {
    if v.is_empty() {
        all.to_vec()
    } else {
        v
    }
}

fn run_bench(b: BenchArgs, m: &ArgMatches) -> ExitCode {
    let mut cfg = BenchConfig {
        units: unique(b.units),
        frames: b.frames as usize,
        warmup: b.warmup as usize,
        seed: b.seed,
        workload: b.workload.into(),
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
    if let Some(path) = &b.scenario {
        let sc = match load_scenario(path) {
            Ok(sc) => sc,
            Err(code) => return code,
        };
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
        let _ = writeln!(
            std::io::stderr(),
            "bench: scenario {} ({})",
            sc.name,
            path.display()
        );
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
        "bench: {} workload, radius {}, world {}, {}, units {:?}, threads {:?}, cell sizes {:?}, {} frames after {} warm-up, seed {}; {} ({} cores)",
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
        cfg.seed,
        bench::cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
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
    let rows = bench::run(&cfg, |r| {
        let _ = writeln!(std::io::stderr(), "{}", r.progress_line());
    });
    // A reader that stops early (`| head`) is not an error of the bench.
    let mut out = std::io::stdout();
    match b.format {
        Format::Markdown => {
            let _ = write!(out, "{}", bench::to_markdown(&rows));
        }
        Format::Json => match serde_json::to_string_pretty(&rows) {
            Ok(s) => {
                let _ = writeln!(out, "{s}");
            }
            Err(e) => {
                eprintln!("error: could not encode the results as JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    if b.roofline {
        let table = bench::roofline::table(&rows);
        let _ = match b.format {
            Format::Markdown => write!(out, "\nRoofline of the sorted-grid rows\n\n{table}"),
            Format::Json => write!(std::io::stderr(), "\n{table}"),
        };
    }
    ExitCode::SUCCESS
}

/// The windowing library panics when the display's client libraries are
/// missing (`X11 backend failed: LibraryNotFound(...)`); say that in one line,
/// with the packages to install, instead of a backtrace. Other panics keep the
/// default report.
fn one_line_window_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("backend failed") || msg.contains("LibraryNotFound") {
            eprintln!(
                "error: the window could not open: {msg}; on Debian or Ubuntu install the display libraries: sudo apt-get install -y libgl1 libx11-6 libxi6 libxkbcommon0"
            );
            std::process::exit(1);
        }
        default(info);
    }));
}

/// Without a display the windowing library panics: says what to do instead
/// and returns the exit code, or `None` when a display is there.
fn require_display() -> Option<ExitCode> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty())
        && std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty())
    {
        eprintln!(
            "error: no display (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine run under a virtual X server: xvfb-run -a -s \"-screen 0 1280x800x24\" spatial-query-lab ..."
        );
        return Some(ExitCode::from(2));
    }
    None
}

/// `render-bench`: opens the window, runs [`app::render_bench::run`], prints
/// the table (Markdown or JSON) to stdout and a line per row to stderr.
fn run_render_bench(r: RenderBenchArgs) -> ExitCode {
    if let Some(code) = require_display() {
        return code;
    }
    let cfg = app::render_bench::RenderBenchConfig {
        units: unique(r.units),
        layouts: unique(r.vertex_layouts),
        frames: r.frames,
        warmup: r.warmup,
        seed: r.seed,
    };
    let format = r.format;
    let conf = macroquad::window::Conf {
        window_title: "Spatial Query Lab: render-bench".to_string(),
        window_width: 1280,
        window_height: 800,
        ..Default::default()
    };
    one_line_window_errors();
    macroquad::Window::from_config(conf, async move {
        let result = app::render_bench::run(&cfg, |row| {
            eprintln!(
                "  {} units, {}: {:.2} ms per frame ({:.1} FPS)",
                row.units, row.vertex_layout, row.render_ms, row.fps
            )
        })
        .await;
        let code = match result {
            Ok(rows) => {
                match format {
                    Format::Markdown => print!("{}", app::render_bench::to_markdown(&rows)),
                    Format::Json => match serde_json::to_string_pretty(&rows) {
                        Ok(j) => println!("{j}"),
                        Err(e) => eprintln!("error: {e}"),
                    },
                }
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
        // macroquad keeps the event loop alive after the future ends; leave now.
        std::process::exit(code);
    });
    ExitCode::SUCCESS
}

fn run_window(w: WindowArgs, m: &ArgMatches) -> ExitCode {
    let mut settings = Settings {
        units: w.units,
        workload: w.workload.into(),
        seed: w.seed,
        world: w.world,
        strategy: w.strategy,
        kernel: w.kernel.map_or_else(Kernel::best, |k| k.or_scalar()),
        threads: w.threads,
        radius: w.radius,
        cell_size: w.cell_size.unwrap_or(w.radius),
        cell_follows_radius: w.cell_size.is_none(),
        reorder: w.reorder,
        reorder_every: w.reorder_every,
        paused: w.paused,
        layout: w.layout,
        pass: w.pass,
        ..Settings::default()
    };
    let scenario = match &w.scenario {
        Some(path) => match load_scenario(path) {
            Ok(mut sc) => {
                settings = with_flags(&sc, &settings, m);
                // The overlay says which values are not the file's.
                let flags: Vec<String> = SCENARIO_FLAGS
                    .iter()
                    .filter(|(id, ..)| given(m, id))
                    .map(|(_, flag, _)| flag.to_string())
                    .collect();
                if !flags.is_empty() {
                    sc.description =
                        format!("{} (changed by {})", sc.description, flags.join(", "))
                            .trim_start()
                            .to_string();
                }
                Some((path.clone(), sc))
            }
            Err(code) => return code,
        },
        None => None,
    };
    if let Some(id) = w.select.filter(|&id| id as usize >= settings.units) {
        eprintln!(
            "error: --select: there is no unit {id}; with {} units the ids run from 0 to {}",
            settings.units,
            settings.units - 1
        );
        return ExitCode::from(2);
    }
    if let Some(path) = &w.screenshot {
        let png = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png {
            eprintln!(
                "error: --screenshot: writes a PNG image; name the file with .png (got {})",
                path.display()
            );
            return ExitCode::from(2);
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(dir) = dir {
            if !dir.is_dir() {
                eprintln!(
                    "error: --screenshot: folder {} does not exist",
                    dir.display()
                );
                return ExitCode::from(2);
            }
        }
        // Fail now, not after rendering every frame, if the file cannot be written.
        let existed = path.exists();
        if let Err(e) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
        {
            eprintln!("error: --screenshot: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        if !existed {
            let _ = std::fs::remove_file(path);
        }
    }
    if let Some(code) = require_display() {
        return code;
    }
    if let Some(k) = w.kernel {
        if !k.is_available() {
            eprintln!(
                "note: this CPU cannot run {}; using {}",
                k.name(),
                settings.kernel.name()
            );
        }
    }
    let opts = AppOptions {
        settings,
        screenshot: w.screenshot,
        frames: w.frames,
        select: w.select,
        color: w.color,
        cell_occupancy: w.heatmap,
        memory_view: w.memory_view,
        sweep: w.sweep,
        vertex_layout: w.vertex_layout,
        normal_precision: w.normal_bits,
        unit_mesh: w.mesh,
        scenario,
    };
    let conf = macroquad::window::Conf {
        window_title: "Spatial Query Lab".to_string(),
        window_width: w.window_size.0,
        window_height: w.window_size.1,
        high_dpi: true,
        ..Default::default()
    };
    one_line_window_errors();
    macroquad::Window::from_config(conf, async move {
        let c = app::run(opts).await;
        // macroquad keeps the event loop alive after the future ends; leave
        // now, with the app's exit code.
        std::process::exit(c);
    });
    // Not reached: the window's future exits the process.
    ExitCode::SUCCESS
}
