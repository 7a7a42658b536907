//! The command line: clap definitions of every flag ([`Cli`]), their
//! validation ([`values`]), and the modes they start: the window and
//! `render-bench` ([`window`]), the headless `bench` ([`bench`](mod@bench)), and the
//! checks that a window can open at all ([`display`]).

#[cfg(feature = "window")]
pub(crate) mod display;
pub(crate) mod lesson;

pub(crate) mod values;
#[cfg(feature = "window")]
pub(crate) mod window;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use spatial_query_lab::bench::cli::Format;
use spatial_query_lab::platform::stdout as output;
use spatial_query_lab::settings::flags::WindowSettingFlags;
use spatial_query_lab::settings::rows::TABLE;
use spatial_query_lab::settings::view::VertexLayout;
use values::*;

#[derive(Parser, Debug)]
#[command(
    name = "spatial-query-lab",
    version,
    about = "Real-time visualizer of fixed-radius neighbor queries: naive scan, uniform grid, CSR grid, SIMD kernels, compressed vertex streams.",
    allow_negative_numbers = true,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) window: WindowArgs,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Headless benchmark of every strategy x kernel x thread count on a standard workload.
    #[command(allow_negative_numbers = true)]
    Bench(Box<spatial_query_lab::bench::cli::BenchArgs>),
    /// Time the unit renderer in a window (run under xvfb-run when headless) for each unit count and vertex layout.
    #[command(name = "render-bench", allow_negative_numbers = true)]
    RenderBench(RenderBenchArgs),
    /// Run a lesson headless: each step measured on this machine, its text printed with the numbers filled in, then the lesson's table. Without NAME, list the bundled lessons.
    Lesson(LessonArgs),
}

#[derive(Args, Debug)]
pub(crate) struct LessonArgs {
    /// A bundled lesson (algorithms, simd, layouts, memory-order, caches, cell-size, results, threads, vertex-data, churn) or a lesson file (FILE.toml).
    #[arg(value_name = "NAME|FILE")]
    pub(crate) lesson: Option<String>,
    /// Output on stdout: md (the texts and the table as Markdown), json (texts, rows with bench's keys and their rounds, sweeps, verdicts) or csv (the table, or a sweep lesson's curves). With json and csv the texts are also printed plain on stderr; progress always goes to stderr.
    #[arg(long, value_enum, default_value_t = TableFormat::Md)]
    pub(crate) format: TableFormat,
    #[arg(help = format!("Cap every step's unit count ({}), for a quick run.", TABLE.units.span_text()))]
    #[arg(long = "max-units", value_name = "N", value_parser = parse_units)]
    pub(crate) max_units: Option<usize>,
    /// Counted frames per step and round instead of the lesson's (1 to 1,000).
    #[arg(long, value_name = "N", value_parser = parse_lesson_frames)]
    pub(crate) frames: Option<usize>,
    /// Rounds instead of the lesson's (1 to 50; default 5): every step once per round, the steps in turn, so each comparison its texts state is a verdict from interleaved rounds; a sweep step runs after them, its cell sizes in turn (--repeats is the same flag).
    #[arg(long, alias = "repeats", value_name = "R", value_parser = parse_rounds)]
    pub(crate) rounds: Option<usize>,
    /// Also write the lesson's chart to FILE.svg or FILE.png (1920x1080): its steps' bars with their rounds' range, or its sweeps' curves; titled, with the machine, date and settings in the caption.
    #[arg(long, value_name = "FILE")]
    pub(crate) chart: Option<PathBuf>,
    /// Also print each step's presenter notes (a crib sheet for whoever presents, with the measured answers to its questions): in the Markdown as a quote under the step, in the plain text formats on stderr.
    #[arg(long)]
    pub(crate) notes: bool,
    /// The chart's value axis: auto (log when the values span more than 20x), log or linear.
    #[arg(long = "chart-scale", value_enum, default_value_t = ChartScale::Auto)]
    pub(crate) chart_scale: ChartScale,
}

/// The value axis of an exported chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ChartScale {
    /// Log when the values span more than 20x, else linear.
    Auto,
    /// Logarithmic.
    Log,
    /// Linear from 0.
    Linear,
}

impl From<ChartScale> for spatial_query_lab::teaching::chart::Scale {
    fn from(s: ChartScale) -> Self {
        use spatial_query_lab::teaching::chart::Scale;
        match s {
            ChartScale::Auto => Scale::Auto,
            ChartScale::Log => Scale::Log,
            ChartScale::Linear => Scale::Linear,
        }
    }
}

/// Output format of a table with texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TableFormat {
    /// Markdown.
    #[value(alias = "markdown")]
    Md,
    /// JSON.
    Json,
    /// CSV (RFC 4180).
    Csv,
}

#[derive(Args, Debug)]
pub(crate) struct RenderBenchArgs {
    #[arg(help = format!("Unit counts, comma-separated (each {}).", TABLE.units.span_text()))]
    #[arg(long, value_delimiter = ',', default_values_t = [10_000usize, 50_000, 200_000], value_parser = parse_units)]
    pub(crate) units: Vec<usize>,
    /// Vertex layouts, comma-separated (compressed, uncompressed).
    #[arg(long = "vertex-layouts", value_delimiter = ',', value_parser = parse_named::<VertexLayout>, default_value = "compressed,uncompressed")]
    pub(crate) vertex_layouts: Vec<VertexLayout>,
    /// Timed frames per combination (the median is reported; 1 to 10,000).
    #[arg(long, default_value_t = 30, value_parser = parse_render_frames)]
    pub(crate) frames: u32,
    /// Untimed frames before them (0 to 1,000).
    #[arg(long, default_value_t = 3, value_parser = parse_render_warmup)]
    pub(crate) warmup: u32,
    /// Spawn seed (a whole number from 0 to 18446744073709551615).
    #[arg(long, default_value_t = TABLE.seed.default_whole(), value_parser = parse_seed)]
    pub(crate) seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub(crate) format: Format,
}

#[derive(Args, Debug)]
pub(crate) struct WindowArgs {
    /// The setting flags (every row of the settings table on the window
    /// surface), as the values given.
    #[command(flatten)]
    pub(crate) settings: WindowSettingFlags,
    /// Open the lessons panel at the first step of this lesson: a bundled one (algorithms, simd, layouts, memory-order, caches, cell-size, results, threads, vertex-data, churn) or a lesson file (FILE.toml). Page Down / Page Up step through it.
    #[arg(long, value_name = "NAME|FILE")]
    pub(crate) lesson: Option<String>,
    /// With --lesson: open it at this step (1-based; one past the last is its summary page). Setting flags given with it change the scene over the step's settings, and the panel says where they differ.
    #[arg(long, value_name = "N", value_parser = parse_step)]
    pub(crate) step: Option<usize>,
    /// Embed mode, for an iframe in slides: the scene and one headline number (the query's time, or the lesson step's first measured value), the panel closed (H opens it). ?embed=1 in the browser.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = clap::builder::BoolishValueParser::new(), default_value = "false")]
    pub(crate) embed: bool,
    /// The page "Copy link" (F4) puts before the state's parameters on the desktop (the browser build uses its own page's address).
    #[arg(
        long = "link-base",
        value_name = "URL",
        default_value = "http://localhost:8000/"
    )]
    pub(crate) link_base: String,
    /// Load a scenario: a built-in preset by name (battle, clustered, hotspot, sparse-huge-world, uniform) or a scenario file (TOML, e.g. my-class.toml); flags given next to it override its values.
    #[arg(long, value_name = "NAME|FILE")]
    pub(crate) scenario: Option<PathBuf>,
    /// Open the memory view at start (key M): the cache lines one query touches.
    #[arg(long = "memory-view")]
    pub(crate) memory_view: bool,
    /// Render the frames, write a PNG of the screen (overlay included) to PATH and exit.
    #[arg(long, value_name = "PATH")]
    pub(crate) screenshot: Option<PathBuf>,
    /// Select unit ID (0 to units - 1) at start and look at it from close by (its query circle and neighbors are highlighted), as a click would; the camera follows it (key F stops).
    #[arg(long, value_name = "ID")]
    pub(crate) select: Option<u32>,
    /// In the browser: the URL parameters left out, each with why
    /// (`units=-5 (…)`), named together in one notice when the lab opens
    /// ([`notice_ignored`]). Always empty on the desktop, which refuses a
    /// bad flag instead.
    #[arg(skip)]
    pub(crate) ignored: Vec<String>,
    /// Exit after N window refreshes (default with --screenshot: 60). Large unit counts draw one picture over several refreshes; the last one is completed before the screenshot.
    #[arg(long, value_name = "N", value_parser = parse_frames)]
    pub(crate) frames: Option<u64>,
    /// Window size in pixels, WIDTHxHEIGHT (each 1 to 32767; default 1280x800; --window-size is the same flag). Windows larger than the GPU's texture or viewport limit are drawn at the limit's resolution.
    #[arg(long = "window", alias = "window-size", value_name = "WxH", value_parser = parse_window_size, default_value = "1280x800")]
    pub(crate) window_size: (i32, i32),
    /// Before the window opens, run every strategy, pass and kernel this build has on a seeded 3,000-unit world and compare each one's neighbor total with the naive scan; print one line "self-check: ok: ..." or "self-check: FAILED: ..." (in the browser, ?self-check, on the console).
    #[arg(long)]
    pub(crate) self_check: bool,
    /// Start full screen (key F11 toggles; the window keeps --window's size for when it leaves full screen).
    #[arg(long)]
    pub(crate) fullscreen: bool,
    /// Scale of the overlay's text and controls, 0.5 to 3.0 (default 1; on top of the display's own scale). Ctrl+= / Ctrl+- / Ctrl+0 and the overlay's UI control change it while running.
    #[arg(long = "ui-scale", value_name = "S", default_value_t = 1.0, value_parser = parse_ui_scale)]
    pub(crate) ui_scale: f32,
    /// Start the cell-size sweep after the first step, as the overlay's "Cell-size sweep" button (key backslash) does; Grid and SortedGrid only. It takes about 120 steps: with --screenshot, pass e.g. --frames 200 to capture its plot.
    #[arg(long)]
    pub(crate) sweep: bool,
}

/// Parses the command line: the flags and their matches (for
/// [`given`]), or the exit code after printing help, the version (0) or a
/// one-line error naming the flag (2).
///
/// In the browser the flags come from the page's URL (`?units=20000&lesson=simd`
/// is `--units=20000 --lesson=simd`, through quad-url), and an error is
/// shown on the page, which has no terminal.
pub(crate) fn parse() -> Result<(Cli, ArgMatches), ExitCode> {
    let mut args = arguments();
    let mut ignored: Vec<String> = Vec::new();
    let parsed = loop {
        let parsed = Cli::command()
            .try_get_matches_from(&args)
            .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
        match parsed {
            // A link with a bad or unknown parameter still opens the lab:
            // the parameter is dropped and named in one notice.
            Err(e) if spatial_query_lab::platform::browser::IN_BROWSER && ignored.len() < 64 => {
                match offending(&e, &args) {
                    Some(i) => {
                        let arg = args.remove(i).to_string_lossy().into_owned();
                        let param = arg.trim_start_matches('-').to_string();
                        ignored.push(format!("{param} ({})", first_line(&e)));
                    }
                    None => break Err(e),
                }
            }
            other => break other,
        }
    };
    let parsed = match parsed {
        // The window's own checks may leave out more (an unknown lesson, a
        // step it lacks): it names them all in one notice.
        Ok((mut cli, m)) => {
            cli.window.ignored = ignored;
            Ok((cli, m))
        }
        Err(e) => {
            notice_ignored(&ignored);
            Err(e)
        }
    };
    parsed.map_err(|e| {
        use clap::error::ErrorKind;
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            #[cfg(feature = "window")]
            if spatial_query_lab::platform::browser::IN_BROWSER {
                spatial_query_lab::platform::browser::page_message(&browser_help(
                    &e.render().to_string(),
                ));
                return ExitCode::SUCCESS;
            }
            let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            return output::print(&text).map_or_else(ExitCode::from, |()| ExitCode::SUCCESS);
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
        let help = if spatial_query_lab::platform::browser::IN_BROWSER {
            "?help"
        } else {
            "--help"
        };
        report(&format!("{line}{allowed} (see {help})"));
        ExitCode::from(2)
    })
}

/// Names the URL parameters the browser build left out, `ignored` (each
/// `param (why)`), in one notice on the page; nothing when there are none.
pub(crate) fn notice_ignored(ignored: &[String]) {
    if ignored.is_empty() {
        return;
    }
    spatial_query_lab::platform::browser::page_notice(
        &format!(
            "Ignored {} of this page's URL parameters, the rest apply: {}. ?help lists them all.",
            if ignored.len() == 1 {
                "one".to_string()
            } else {
                ignored.len().to_string()
            },
            ignored.join("; ")
        ),
        true,
    );
}

/// The index in `args` of the argument clap's error `e` is about (a flag
/// it does not know, or one whose value it refused), if it can be told;
/// never the program's name (index 0), nor help or version.
fn offending(e: &clap::Error, args: &[std::ffi::OsString]) -> Option<usize> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return None;
    }
    let flag = match e.get(ContextKind::InvalidArg)? {
        ContextValue::String(s) => s.split([' ', '=']).next()?.to_string(),
        _ => return None,
    };
    args.iter().enumerate().skip(1).find_map(|(i, a)| {
        let a = a.to_string_lossy();
        (a == flag || a.starts_with(&format!("{flag}="))).then_some(i)
    })
}

/// The first non-empty line of clap's error `e`, without its `error: `.
fn first_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("not understood");
    line.trim_start_matches("error: ").to_string()
}

/// clap's help text `help` as the browser build's `?help` page: the flags
/// written as URL parameters, and what the browser leaves out.
#[cfg(feature = "window")]
fn browser_help(help: &str) -> String {
    let mut out = String::from(
        "Spatial Query Lab in the browser: every flag below is a URL parameter.\n\
         --units 20000 --lesson simd is ?units=20000&lesson=simd; a flag without a value, ?self-check.\n\
         The browser build has no files (lessons by name only; exports become downloads), one thread, and the SIMD128 kernel;\n\
         bench, lesson and render-bench are the desktop program's.\n\n",
    );
    out.push_str(help);
    out
}

/// The program's arguments: the command line, or in the browser the
/// page's URL parameters as flags.
fn arguments() -> Vec<std::ffi::OsString> {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "window"))]
    {
        quad_url::get_program_parameters()
            .into_iter()
            .map(Into::into)
            .collect()
    }
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown", feature = "window")))]
    {
        std::env::args_os().collect()
    }
}

/// Reports an error that stops the program before its window: on stderr,
/// and in the browser (no terminal) on the page and the console too.
pub(crate) fn report(line: &str) {
    eprintln!("{line}");
    #[cfg(feature = "window")]
    if spatial_query_lab::platform::browser::IN_BROWSER {
        spatial_query_lab::platform::browser::page_failed(&format!(
            "{line} (a URL parameter is a flag: ?units=20000 is --units=20000)"
        ));
        macroquad::logging::error!("{}", line);
    }
}

/// Loads `--scenario`, or prints its one-line error and returns the exit code.
#[cfg(feature = "window")]
pub(crate) fn load_scenario(
    path: &std::path::Path,
) -> Result<spatial_query_lab::settings::scenario::Scenario, ExitCode> {
    spatial_query_lab::settings::scenario::bundled::resolve(path).map_err(|e| {
        report(&format!("error: --scenario: {e}"));
        ExitCode::from(2)
    })
}
