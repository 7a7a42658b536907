//! `spatial-query-lab`: the visualizer window, or a headless mode.
//!
//! - `spatial-query-lab [--units N] [--radius R] [--cell-size C] [--seed S] ...` opens the window;
//! - `spatial-query-lab --screenshot PATH [--frames N]` renders N frames, writes a PNG and exits;
//! - `spatial-query-lab bench [...]` runs the headless benchmark;
//! - `spatial-query-lab render-bench [...]` times the unit renderer;
//! - `spatial-query-lab lesson [NAME|FILE]` runs a lesson headless.
//!
//! This file dispatches; the flags and the modes are in [`cli`]. Built
//! without the `window` feature (`--no-default-features`, as for
//! wasm32-wasip1), the window and `render-bench` answer with one line and
//! exit code 2; `bench` and `lesson` work.

mod cli;

use std::process::ExitCode;

use spatial_query_lab::platform::alloc_count::CountingAlloc;

/// Counts allocations so the overlay can show allocations per frame.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() -> ExitCode {
    let (cli, matches) = match cli::parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match cli.command {
        Some(cli::Command::Bench(b)) => spatial_query_lab::bench::cli::run(*b),
        #[cfg(feature = "window")]
        Some(cli::Command::RenderBench(r)) => cli::window::run_render_bench(r),
        Some(cli::Command::Lesson(l)) => cli::lesson::run(l),
        #[cfg(feature = "window")]
        None => cli::window::run_window(cli.window, &matches),
        // Built without the window (`--no-default-features`, e.g. for
        // wasm32-wasip1): the headless modes only.
        #[cfg(not(feature = "window"))]
        Some(cli::Command::RenderBench(_)) | None => {
            let _ = (&cli.window, &matches);
            eprintln!("this build has no window: built without the `window` feature (bench and lesson work)");
            ExitCode::from(2)
        }
    }
}

/// In the browser a panic aborts the module with no message: say it on the
/// console and on the page instead. Installed inside the window's future,
/// after macroquad's own hook (which logs only the panic's debug form).
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub(crate) fn browser_panics() {
    std::panic::set_hook(Box::new(|info| {
        macroquad::logging::error!("{}", info);
        spatial_query_lab::platform::browser::page_failed(&format!(
            "Spatial Query Lab stopped: {info}. Reload the page to start again."
        ));
    }));
}
