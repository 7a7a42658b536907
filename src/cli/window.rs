//! The window (the default mode) and `render-bench`: flags and scenario
//! merged into the start-up settings, checks that fail before the window
//! opens, then the frame loop.

use std::process::ExitCode;

use clap::ArgMatches;

use spatial_query_lab::app::{self, AppOptions};
use spatial_query_lab::scenario::{Scenario, ScenarioView};
use spatial_query_lab::sim::Settings;
use spatial_query_lab::spatial::Kernel;

use super::display::{one_line_window_errors, require_display, window_opened};
use super::{given, load_scenario, unique, Format, RenderBenchArgs, WindowArgs};

/// How a window flag given on the command line restores its value over a
/// scenario's: (clap id, flag, copy from the flags' settings).
type Override = (&'static str, &'static str, fn(&mut Settings, &Settings));

/// The window's flags that override a scenario's engine values.
const SCENARIO_FLAGS: [Override; 14] = [
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
    ("kernel", "--kernel", |s, f| s.kernel = f.kernel),
    ("layout", "--layout", |s, f| s.layout = f.layout),
    ("reorder", "--reorder", |s, f| s.reorder = f.reorder),
    ("reorder_every", "--reorder-every", |s, f| {
        s.reorder_every = f.reorder_every
    }),
    ("pass", "--pass", |s, f| s.pass = f.pass),
    ("paused", "--paused", |s, f| s.paused = f.paused),
];

/// How a scenario's view value replaces a view flag's (default) value
/// unless the flag was given: (clap id, flag, copy from the scenario).
type ViewOverride = (
    &'static str,
    &'static str,
    fn(&mut WindowArgs, &ScenarioView),
);

/// The window's view flags a scenario can set.
const VIEW_FLAGS: [ViewOverride; 5] = [
    ("color", "--color", |w, v| {
        w.color = v.color.unwrap_or(w.color)
    }),
    ("vertex_layout", "--vertex-layout", |w, v| {
        w.vertex_layout = v.vertex_layout.unwrap_or(w.vertex_layout)
    }),
    ("normal_bits", "--normal-bits", |w, v| {
        w.normal_bits = v.normal_bits.unwrap_or(w.normal_bits)
    }),
    ("mesh", "--mesh", |w, v| w.mesh = v.mesh.unwrap_or(w.mesh)),
    ("heatmap", "--heatmap", |w, v| {
        w.heatmap = v.heatmap.unwrap_or(w.heatmap)
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
                    Ok(text) => super::output::print(&text).map_or_else(i32::from, |()| 0),
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
/// The window's flags a lesson's steps set (and so override): the engine
/// settings a step can name.
const LESSON_SETS: &[&str] = &[
    "units",
    "workload",
    "strategy",
    "kernel",
    "layout",
    "cell_size",
    "radius",
    "threads",
    "seed",
];

pub(crate) fn run_window(mut w: WindowArgs, m: &ArgMatches) -> ExitCode {
    let mut settings = Settings {
        units: w.units,
        workload: w.workload,
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
    let scenario = match w.scenario.clone() {
        Some(path) => match load_scenario(&path) {
            Ok(mut sc) => {
                settings = with_flags(&sc, &settings, m);
                for (id, _, take) in VIEW_FLAGS {
                    if !given(m, id) {
                        take(&mut w, &sc.view);
                    }
                }
                // The overlay says which values are not the file's.
                let flags: Vec<&str> = SCENARIO_FLAGS
                    .iter()
                    .map(|(id, flag, _)| (*id, *flag))
                    .chain(VIEW_FLAGS.iter().map(|(id, flag, _)| (*id, *flag)))
                    .filter(|(id, _)| given(m, id))
                    .map(|(_, flag)| flag)
                    .collect();
                let mut notes = Vec::new();
                if !flags.is_empty() {
                    notes.push(format!("changed by {}", flags.join(", ")));
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
                Some((path, sc))
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
    let lesson = match w
        .lesson
        .as_deref()
        .map(spatial_query_lab::lesson::bundled::resolve)
    {
        None => None,
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            super::report(&format!("error: --lesson: {e}"));
            return ExitCode::from(2);
        }
    };
    if lesson.is_some() {
        // Every step sets the scene from the lesson's file; say which flags
        // that overrides instead of dropping them without a word.
        let overridden: Vec<String> = LESSON_SETS
            .iter()
            .filter(|id| super::given(m, id))
            .map(|id| format!("--{}", id.replace('_', "-")))
            .collect();
        if !overridden.is_empty() {
            eprintln!(
                "note: --lesson: each step sets its own settings, so {} are not used (the window's controls change them after the lesson)",
                overridden.join(", ")
            );
        }
    }
    if w.self_check {
        self_check(settings.seed);
    }
    if let Some(code) = require_display() {
        return code;
    }
    if let Some(k) = w.kernel {
        if let Some(why) = k.absent_reason() {
            eprintln!("note: {why}; using {}", settings.kernel.name());
        }
    }
    let asked = w.window_size;
    w.window_size = fit_framebuffer(asked);
    if w.window_size != asked {
        eprintln!(
            "note: --window {}x{} needs a {} framebuffer; windows are limited to {} of RGBA pixels (Mesa's rasterizer crashes above it), so it opens at {}x{}",
            asked.0,
            asked.1,
            spatial_query_lab::format::bytes(asked.0 as usize * asked.1 as usize * 4),
            spatial_query_lab::format::bytes(MAX_FRAMEBUFFER_BYTES),
            w.window_size.0,
            w.window_size.1
        );
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
        lesson,
        ui_scale: Some(w.ui_scale),
        fullscreen: w.fullscreen,
        window_size: w.window_size,
    };
    let conf = macroquad::window::Conf {
        window_title: "Spatial Query Lab".to_string(),
        window_width: w.window_size.0,
        window_height: w.window_size.1,
        high_dpi: true,
        fullscreen: w.fullscreen,
        platform: web_platform(),
        ..Default::default()
    };
    one_line_window_errors();
    macroquad::Window::from_config(conf, async move {
        window_opened();
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        crate::browser_panics();
        let c = app::run(opts).await;
        if spatial_query_lab::browser::IN_BROWSER {
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
        let _ = super::output::println(&line);
        if spatial_query_lab::browser::IN_BROWSER {
            macroquad::logging::info!("{}", line);
        }
    } else {
        eprintln!("{line}");
        if spatial_query_lab::browser::IN_BROWSER {
            macroquad::logging::error!("{}", line);
        }
    }
    spatial_query_lab::browser::page_notice(&line, !check.ok());
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
}
