//! `spatial-query-lab`: the visualizer window, or a headless mode.
//!
//! - `spatial-query-lab [--units N] [--radius R] [--cell-size C] [--seed S] ...` opens the window;
//! - `spatial-query-lab --screenshot PATH [--frames N]` renders N frames, writes a PNG and exits;
//! - `spatial-query-lab bench [...]` runs the headless benchmark;
//! - `spatial-query-lab render-bench [...]` times the unit renderer;
//! - `spatial-query-lab lesson [NAME|FILE]` runs a lesson headless.
//!
//! This file dispatches; the flags and the modes are in [`cli`].

mod cli;

use std::process::ExitCode;

use spatial_query_lab::alloc_count::CountingAlloc;

/// Counts allocations so the overlay can show allocations per frame.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() -> ExitCode {
    let (cli, matches) = match cli::parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match cli.command {
        Some(cli::Command::Bench(b)) => {
            let m = matches.subcommand_matches("bench").unwrap_or(&matches);
            cli::bench::run(b, m)
        }
        Some(cli::Command::RenderBench(r)) => cli::window::run_render_bench(r),
        Some(cli::Command::Lesson(l)) => cli::lesson::run(l),
        None => cli::window::run_window(cli.window, &matches),
    }
}

/// In the browser a panic aborts the module with no message: say it on the
/// console and on the page instead. Installed inside the window's future,
/// after macroquad's own hook (which logs only the panic's debug form).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) fn browser_panics() {
    std::panic::set_hook(Box::new(|info| {
        macroquad::logging::error!("{}", info);
        spatial_query_lab::app::browser::page_failed(&format!(
            "Spatial Query Lab stopped: {info}. Reload the page to start again."
        ));
    }));
}
