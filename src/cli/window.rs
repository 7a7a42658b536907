//! The window (the default mode) and `render-bench`: flags and scenario
//! merged into the start-up settings, checks that fail before the window
//! opens, then the frame loop.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;

use spatial_query_lab::engine::sim::Settings;
use spatial_query_lab::platform::browser::IN_BROWSER;
use spatial_query_lab::settings::flags::{given, GivenFlags};
use spatial_query_lab::settings::rows::Row;
use spatial_query_lab::settings::scenario::{Scenario, ScenarioView};
use spatial_query_lab::settings::view::ViewSettings;
use spatial_query_lab::teaching::lesson::Lesson;
use spatial_query_lab::window::app::{self, AppOptions};

use super::display::{one_line_window_errors, require_display, window_opened};
use spatial_query_lab::bench::cli::Format;
use spatial_query_lab::settings::flags::unique;

use super::{load_scenario, RenderBenchArgs, WindowArgs};

/// The window's setting flags given on the command line, as a scenario
/// ([`Scenario::from_given`]): each given flag's value, `None` for every
/// field whose flag is left at its default or that has no window flag.
/// Allocates nothing.
fn given_flags(m: &ArgMatches) -> Scenario {
    Scenario::from_given(&GivenFlags(m))
}

/// The start-up settings and view values as one merge: the defaults, then
/// the scenario `file`'s values, then the `flags` given
/// ([`Scenario::overlay`], [`Scenario::apply`]). A radius from either
/// keeps a cell size from either; the cell follows the radius only when
/// neither names one. Allocates the merged scenario's strings.
fn merge(file: &Scenario, flags: &Scenario) -> (Settings, ScenarioView) {
    let merged = file.overlay(flags);
    let mut settings = Settings::default();
    merged.apply(&mut settings);
    (settings, merged.view)
}

/// The `--flag` spellings of the settings given as flags, in the table's
/// order ([`Scenario::named`]).
fn given_scenario_flags(m: &ArgMatches) -> Vec<String> {
    given_flags(m)
        .named()
        .iter()
        .map(|key| format!("--{}", Row::by_key(key).map_or(*key, |r| r.flag)))
        .collect()
}

/// `render-bench`: opens the window, runs [`app::render_bench::run`], prints
/// the table (Markdown or JSON) to stdout and a line per row to stderr.
pub(crate) fn run_render_bench(r: RenderBenchArgs) -> ExitCode {
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
        window_opened();
        let result = app::render_bench::run(&cfg, |row| {
            eprintln!(
                "  {} units, {}: {:.2} ms per frame ({:.1} FPS)",
                row.units, row.vertex_layout, row.render_ms, row.fps
            )
        })
        .await;
        let code = match result {
            Ok(rows) => {
                let text = match format {
                    Format::Markdown => Ok(app::render_bench::to_markdown(&rows)),
                    Format::Json => serde_json::to_string_pretty(&rows).map(|j| j + "\n"),
                };
                match text {
                    Ok(text) => spatial_query_lab::platform::stdout::print(&text)
                        .map_or_else(i32::from, |()| 0),
                    Err(e) => {
                        eprintln!("error: {e}");
                        1
                    }
                }
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

/// Opens the window with the flags `w` (and their matches `m`, for the
/// scenario overrides); returns the exit code of a check that failed
/// before it opened (the frame loop exits the process itself).
pub(crate) fn run_window(mut w: WindowArgs, m: &ArgMatches) -> ExitCode {
    let (settings, view, scenario) = match start_settings(&mut w, m) {
        Ok(start) => start,
        Err(code) => return code,
    };
    if let Some(id) = w.select.filter(|&id| id as usize >= settings.units) {
        let why = format!(
            "there is no unit {id}; with {} units the ids run from 0 to {}",
            settings.units,
            settings.units - 1
        );
        if !IN_BROWSER {
            eprintln!("error: --select: {why}");
            return ExitCode::from(2);
        }
        w.ignored.push(format!("select={id} ({why})"));
        w.select = None;
    }
    if let Some(path) = &w.screenshot {
        if let Err(e) = check_screenshot(path) {
            eprintln!("error: --screenshot: {e}");
            return ExitCode::from(2);
        }
    }
    // In the browser a link keeps working without what it names wrongly:
    // each such parameter is left out and named in the one notice.
    let lesson = match w
        .lesson
        .as_deref()
        .map(spatial_query_lab::teaching::lesson::bundled::resolve)
    {
        None => None,
        Some(Ok(l)) => Some(l),
        Some(Err(e)) if IN_BROWSER => {
            let name = w.lesson.take().unwrap_or_default();
            w.ignored.push(format!("lesson={name} ({e})"));
            None
        }
        Some(Err(e)) => {
            super::report(&format!("error: --lesson: {e}"));
            return ExitCode::from(2);
        }
    };
    if lesson.is_some() {
        note_lesson_overrides(m);
    } else if let Some(n) = w.step {
        if !IN_BROWSER {
            super::report("error: --step: needs --lesson (the step of which lesson?)");
            return ExitCode::from(2);
        }
        w.ignored
            .push(format!("step={n} (it needs a lesson: ?lesson=NAME&step=N)"));
        w.step = None;
    }
    if let (Some(l), Some(n)) = (&lesson, w.step) {
        if n > l.steps.len() + 1 {
            let why = format!(
                "lesson {} has {} steps (and its summary, {}); got {n}",
                l.name,
                l.steps.len(),
                l.steps.len() + 1
            );
            if !IN_BROWSER {
                super::report(&format!("error: --step: {why}"));
                return ExitCode::from(2);
            }
            w.ignored
                .push(format!("step={n} ({why}; the lesson opens at step 1)"));
            w.step = None;
        }
    }
    super::notice_ignored(&w.ignored);
    let lesson_flags = w.settings.0.clone();
    if w.self_check {
        self_check(settings.seed);
    }
    if let Some(code) = require_display() {
        return code;
    }
    if let Some(why) = lesson_flags.kernel.and_then(|k| k.absent_reason()) {
        eprintln!("note: {why}; using {}", settings.kernel.name());
    }
    w.window_size = fit_window(w.window_size);
    let mut opts = app_options(w, settings, view, scenario, lesson);
    opts.lesson_flags = lesson_flags;
    open(opts)
}

/// The start-up settings and view values ([`merge`]) and the scenario
/// with its path, its description noting which values the flags changed
/// and a kernel this CPU lacks. Errors: the exit code after a scenario
/// that cannot be read ([`load_scenario`], its one line printed).
#[allow(clippy::type_complexity)]
fn start_settings(
    w: &mut WindowArgs,
    m: &ArgMatches,
) -> Result<(Settings, ViewSettings, Option<(PathBuf, Scenario)>), ExitCode> {
    let flags = &w.settings.0;
    let start = |file: &Scenario| {
        let (settings, view) = merge(file, flags);
        (settings, ViewSettings::default().overlaid(&view))
    };
    let Some(path) = w.scenario.clone() else {
        let (settings, view) = start(&Scenario::default());
        return Ok((settings, view, None));
    };
    let mut sc = match path.to_str().filter(|_| IN_BROWSER) {
        // A link with an unknown preset still opens, with the defaults.
        Some(name) => match spatial_query_lab::settings::scenario::bundled::resolve(&path) {
            Ok(sc) => sc,
            Err(e) => {
                w.ignored.push(format!("scenario={name} ({e})"));
                w.scenario = None;
                let (settings, view) = start(&Scenario::default());
                return Ok((settings, view, None));
            }
        },
        None => load_scenario(&path)?,
    };
    let (settings, view) = start(&sc);
    // The overlay says which values are not the file's.
    let mut notes = Vec::new();
    let changed = given_scenario_flags(m);
    if !changed.is_empty() {
        notes.push(format!("changed by {}", changed.join(", ")));
    }
    if let Some(note) = sc.kernel_note().filter(|_| !given(m, "kernel")) {
        eprintln!("note: --scenario: {note}");
        notes.push(note);
    }
    if !notes.is_empty() {
        sc.description = format!("{} ({})", sc.description, notes.join("; "))
            .trim_start()
            .to_string();
    }
    Ok((settings, view, Some((path, sc))))
}

/// Checks that `--screenshot PATH` can be written before any frame is
/// rendered: a `.png` name, an existing folder, a file that opens for
/// writing (created and removed again when it did not exist). Errors: the
/// message after `--screenshot: `.
fn check_screenshot(path: &Path) -> Result<(), String> {
    let png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !png {
        return Err(format!(
            "writes a PNG image; name the file with .png (got {})",
            path.display()
        ));
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = dir.filter(|d| !d.is_dir()) {
        return Err(format!("folder {} does not exist", dir.display()));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Says which given flags a lesson's steps set instead (every step sets
/// the scene from the lesson's file), rather than dropping them silently.
fn note_lesson_overrides(m: &ArgMatches) {
    let overridden = given_scenario_flags(m);
    if !overridden.is_empty() {
        eprintln!(
            "note: --lesson: {} change the scene over the step's own settings; the lesson measures its steps as written, and its panel says where the scene differs",
            overridden.join(", ")
        );
    }
}

/// `asked` fitted to the framebuffer limit ([`fit_framebuffer`]), with a
/// note on stderr when it had to shrink.
fn fit_window(asked: (i32, i32)) -> (i32, i32) {
    let fitted = fit_framebuffer(asked);
    if fitted != asked {
        eprintln!(
            "note: --window {}x{} needs a {} framebuffer; windows are limited to {} of RGBA pixels (Mesa's rasterizer crashes above it), so it opens at {}x{}",
            asked.0,
            asked.1,
            spatial_query_lab::format::bytes(asked.0 as usize * asked.1 as usize * 4),
            spatial_query_lab::format::bytes(MAX_FRAMEBUFFER_BYTES),
            fitted.0,
            fitted.1
        );
    }
    fitted
}

/// The app's start-up options from the flags `w`, the merged `settings`
/// and `view`, the scenario and the lesson.
fn app_options(
    w: WindowArgs,
    settings: Settings,
    view: ViewSettings,
    scenario: Option<(PathBuf, Scenario)>,
    lesson: Option<Lesson>,
) -> AppOptions {
    AppOptions {
        settings,
        view,
        screenshot: w.screenshot,
        frames: w.frames,
        select: w.select,
        memory_view: w.memory_view,
        sweep: w.sweep,
        scenario: scenario.map(|(file, scenario)| app::LoadedScenario { file, scenario }),
        lesson,
        lesson_step: w.step,
        lesson_flags: Scenario::default(),
        embed: w.embed,
        link_base: w.link_base,
        ui_scale: Some(w.ui_scale),
        fullscreen: w.fullscreen,
        window_size: w.window_size,
    }
}

/// Opens the window and runs the app in it with `opts`; the window's
/// future ends the process with the app's exit code (in the browser it
/// keeps the page and its last picture instead).
fn open(opts: AppOptions) -> ExitCode {
    let conf = macroquad::window::Conf {
        window_title: "Spatial Query Lab".to_string(),
        window_width: opts.window_size.0,
        window_height: opts.window_size.1,
        high_dpi: true,
        fullscreen: opts.fullscreen,
        platform: web_platform(),
        ..Default::default()
    };
    one_line_window_errors();
    macroquad::Window::from_config(conf, async move {
        window_opened();
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        crate::browser_panics();
        let c = app::run(opts).await;
        if IN_BROWSER {
            // A page has no process to end, and ending this future makes
            // gl.js close the page: keep it, with its last picture or the
            // message the app put on it.
            loop {
                macroquad::window::next_frame().await;
            }
        }
        // macroquad keeps the event loop alive after the future ends; leave
        // now, with the app's exit code.
        std::process::exit(c);
    });
    // Not reached: the window's future exits the process.
    ExitCode::SUCCESS
}

/// miniquad's platform settings: WebGL 2 in the browser, where WebGL 1
/// has no 32-bit indices (the impostor draw indexes every unit) and
/// refuses `GL_PROGRAM_POINT_SIZE`; WebGL 2 has 32-bit indices and always
/// honors `gl_PointSize`, and gl.js turns the `#version 100` shaders into
/// GLSL ES 3.00 for it. The defaults elsewhere.
fn web_platform() -> macroquad::miniquad::conf::Platform {
    macroquad::miniquad::conf::Platform {
        webgl_version: macroquad::miniquad::conf::WebGLVersion::WebGL2,
        ..Default::default()
    }
}

/// Units and frames of `--self-check`: enough for every cell to hold
/// several units and for units to cross cells, a fraction of a second.
const SELF_CHECK: (usize, usize) = (3_000, 3);

/// `--self-check`: compares every variant with the naive scan
/// ([`spatial_query_lab::measure::self_check`]) and prints its one line: on
/// stdout (stderr when it failed), and in the browser on the console
/// (`console.error` when it failed), where the browser smoke test reads it,
/// and in a notice on the page.
fn self_check(seed: u64) {
    let (units, frames) = SELF_CHECK;
    let check = spatial_query_lab::measure::self_check::run(units, seed, frames);
    let line = check.line(units, frames);
    if check.ok() {
        // The window opens after it; a closed stdout does not stop that.
        let _ = spatial_query_lab::platform::stdout::println(&line);
        if IN_BROWSER {
            macroquad::logging::info!("{}", line);
        }
    } else {
        eprintln!("{line}");
        if IN_BROWSER {
            macroquad::logging::error!("{}", line);
        }
    }
    spatial_query_lab::platform::browser::page_notice(&line, !check.ok());
}

/// The largest framebuffer a window may ask for, bytes of RGBA8: 2 GiB
/// minus one pixel. Mesa's software rasterizer segfaults above 2^31 bytes
/// (seen at 32766x32766 and 32767x32767; 20000x20000, 1.6 GB, works), and a
/// window that large is no use on any GPU.
const MAX_FRAMEBUFFER_BYTES: usize = (1 << 31) - 4;

/// `size` scaled down, keeping its aspect, until its RGBA8 framebuffer fits
/// in [`MAX_FRAMEBUFFER_BYTES`]; unchanged when it already does.
fn fit_framebuffer(size: (i32, i32)) -> (i32, i32) {
    let (w, h) = (size.0.max(1) as f64, size.1.max(1) as f64);
    let limit = (MAX_FRAMEBUFFER_BYTES / 4) as f64;
    if w * h <= limit {
        return size;
    }
    let k = (limit / (w * h)).sqrt();
    (
        (w * k).floor().max(1.0) as i32,
        (h * k).floor().max(1.0) as i32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_fit_the_framebuffer_limit() {
        assert_eq!(fit_framebuffer((1280, 800)), (1280, 800));
        assert_eq!(fit_framebuffer((20000, 20000)), (20000, 20000));
        for size in [(32767, 32767), (32766, 32766), (32767, 1), (30000, 20000)] {
            let (w, h) = fit_framebuffer(size);
            assert!(
                w as usize * h as usize * 4 <= MAX_FRAMEBUFFER_BYTES,
                "{size:?}"
            );
            assert!(w <= size.0 && h <= size.1, "{size:?}");
        }
        assert_eq!(fit_framebuffer((32767, 1)), (32767, 1));
    }

    /// The command line's matches for `args` (after the program name).
    fn flags(args: &[&str]) -> ArgMatches {
        use clap::CommandFactory;
        let argv = std::iter::once("spatial-query-lab").chain(args.iter().copied());
        crate::cli::Cli::command().get_matches_from(argv)
    }

    /// A scenario naming units, radius, strategy and a view value.
    fn file() -> Scenario {
        Scenario {
            units: Some(5_000),
            radius: Some(3.0),
            strategy: Some(spatial_query_lab::engine::spatial::Strategy::Naive),
            view: ScenarioView {
                heatmap: Some(true),
                ..ScenarioView::default()
            },
            ..Scenario::default()
        }
    }

    #[test]
    fn flags_given_override_the_file_and_the_file_overrides_the_defaults() {
        let m = flags(&["--units", "7000", "--cell-size", "4"]);
        let (s, view) = merge(&file(), &given_flags(&m));
        assert_eq!(s.units, 7_000, "a given flag beats the file");
        assert_eq!(s.radius, 3.0, "the file beats the default");
        assert_eq!(
            s.strategy,
            spatial_query_lab::engine::spatial::Strategy::Naive
        );
        assert_eq!((s.cell_size, s.cell_follows_radius), (4.0, false));
        assert_eq!(view.heatmap, Some(true));
        let d = Settings::default();
        assert_eq!((s.seed, s.layout, s.pass), (d.seed, d.layout, d.pass));
        assert_eq!(given_scenario_flags(&m), ["--units", "--cell-size"]);
    }

    #[test]
    fn flags_left_at_their_defaults_do_not_override_the_file() {
        let m = flags(&["--units", "1000", "--strategy", "grid"]);
        let fl = given_flags(&m);
        assert_eq!(fl.radius, None, "--radius was not given");
        let (s, _) = merge(&file(), &fl);
        assert_eq!((s.units, s.radius), (1_000, 3.0));
        assert_eq!(
            s.strategy,
            spatial_query_lab::engine::spatial::Strategy::Grid
        );
        assert_eq!((s.cell_size, s.cell_follows_radius), (3.0, true));
    }

    #[test]
    fn a_radius_flag_moves_a_following_cell_but_not_a_named_one() {
        let m = flags(&["--radius", "6"]);
        let (s, _) = merge(&file(), &given_flags(&m));
        assert_eq!(
            (s.radius, s.cell_size, s.cell_follows_radius),
            (6.0, 6.0, true)
        );
        let named = Scenario {
            cell_size: Some(4.0),
            ..file()
        };
        let (s, _) = merge(&named, &given_flags(&m));
        assert_eq!(
            (s.radius, s.cell_size, s.cell_follows_radius),
            (6.0, 4.0, false)
        );
    }

    #[test]
    fn no_file_and_no_flags_start_from_the_defaults() {
        let m = flags(&[]);
        let (s, view) = merge(&Scenario::default(), &given_flags(&m));
        assert_eq!(s, Settings::default());
        assert_eq!(view, ScenarioView::default());
    }

    /// Every row of the settings table on the window surface is a flag of
    /// its own type: given one value each (its default's text, or its
    /// range's top), every such field is read back, in the table's order.
    #[test]
    fn every_setting_on_the_window_surface_has_a_flag_of_its_type() {
        use spatial_query_lab::settings::rows::{Section, Surfaces, ROWS};
        let (s, v) = (Settings::default(), ViewSettings::default());
        let mut args: Vec<String> = Vec::new();
        let mut want = Vec::new();
        for r in ROWS.iter().filter(|r| r.on.has(Surfaces::WINDOW)) {
            let text = match r.section {
                Section::Engine => s.value(r.key),
                Section::View => v.value(r.key),
            }
            .map(|v| v.text)
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| format!("{}", r.max()));
            args.push(format!("--{}={text}", r.flag));
            want.push(r.key);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let fl = given_flags(&flags(&refs));
        assert_eq!(
            fl.named(),
            want,
            "a setting's flag is missing or of another type"
        );
        let m = flags(&[
            "--units",
            "500",
            "--world",
            "90",
            "--reorder-every",
            "9",
            "--kernel",
            "scalar",
            "--normal-bits",
            "8",
            "--paused",
            "--heatmap",
            "--speed",
            "2.5",
            "--separation",
            "0",
        ]);
        let fl = given_flags(&m);
        assert_eq!(
            (fl.units, fl.world, fl.reorder_every),
            (Some(500), Some(90.0), Some(9))
        );
        assert_eq!((fl.speed, fl.separation), (Some(2.5), Some(0.0)));
        assert_eq!(
            fl.kernel,
            Some(spatial_query_lab::engine::spatial::Kernel::Scalar)
        );
        assert_eq!(
            fl.view.normal_bits,
            Some(spatial_query_lab::settings::view::NormalPrecision::Oct8)
        );
        assert_eq!((fl.paused, fl.view.heatmap), (Some(true), Some(true)));
    }

    /// A switch alone turns on; `=false` turns off what a scenario or a
    /// lesson step turns on (a link's `paused=false`).
    #[test]
    fn switches_take_an_optional_joined_value() {
        let fl = given_flags(&flags(&["--paused=false", "--heatmap=false"]));
        assert_eq!((fl.paused, fl.view.heatmap), (Some(false), Some(false)));
        let fl = given_flags(&flags(&["--paused", "--heatmap=true"]));
        assert_eq!((fl.paused, fl.view.heatmap), (Some(true), Some(true)));
        let fl = given_flags(&flags(&[]));
        assert_eq!((fl.paused, fl.view.heatmap), (None, None));
    }
}
