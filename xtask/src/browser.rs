//! The browser build in headless Chromium: `scripts/web-build.sh` (SIMD128
//! on) into a folder of its own, checked to hold the seven page files only
//! and to stay small, then opened by `tests/web/smoke.mjs` (puppeteer-core),
//! which checks that the page gets ready and draws frames, that the overlay
//! and the units are on the screenshot, that a key and a click change the
//! picture, that `?self-check` finds every kernel equal to the naive scan,
//! the pages without WebGL 2, from `file://`, of `?help` and of bad
//! parameters, the simd and threads lessons read as sentences, every export
//! key downloads or copies what it should, and that no console error or
//! warning, exception or `alert()` happened on the way. The default page's
//! screenshot is left at `target/xtask/browser-smoke.png`.

use std::process::Command;

use crate::tools::{capture, ensure, has_program, has_target, need, out_dir, root, Outcome};

const INSTALL: &str = "rustup target add wasm32-unknown-unknown; apt-get install nodejs npm chromium; npm install --prefix tests/web";

/// The seven files of the page, sorted.
const PAGE_FILES: [&str; 7] = [
    "gl.js",
    "index.html",
    "presenter.html",
    "quad-url.js",
    "sapp_jsutils.js",
    "spatial-query-lab.wasm",
    "sql.js",
];

/// Largest page, bytes: about 6.5 MB, most of it the wasm module, 89 KB of
/// it the source the Code tab shows.
const MAX_PAGE_BYTES: u64 = 7_000_000;

/// Builds the page and runs the smoke test in headless Chromium.
pub fn check() -> Outcome {
    let root = root();
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string());
    let mut missing = Vec::new();
    need(
        &mut missing,
        has_target("wasm32-unknown-unknown"),
        "the Rust target wasm32-unknown-unknown",
    );
    need(&mut missing, has_program("node"), "node");
    need(
        &mut missing,
        has_program(&chromium),
        format!("chromium ({chromium})"),
    );
    need(
        &mut missing,
        root.join("tests/web/node_modules/puppeteer-core").is_dir(),
        "tests/web/node_modules/puppeteer-core",
    );
    if !missing.is_empty() {
        return Outcome::Missing {
            missing,
            install: INSTALL,
        };
    }
    match run(&chromium) {
        Ok(()) => Outcome::Passed,
        Err(e) => Outcome::Failed(e),
    }
}

fn run(chromium: &str) -> Result<(), String> {
    let root = root();
    let web = out_dir().join("web");
    // web-build.sh refuses a folder holding other files: start empty.
    let _ = std::fs::remove_dir_all(&web);
    capture(
        "scripts/web-build.sh",
        Command::new("bash")
            .arg(root.join("scripts/web-build.sh"))
            .arg("--out")
            .arg(&web)
            .current_dir(&root)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_BUILD_TARGET"),
    )?;
    let mut names: Vec<String> = std::fs::read_dir(&web)
        .map_err(|e| format!("{}: {e}", web.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    ensure(names == PAGE_FILES, || {
        format!("the web folder holds the seven page files only; it holds {names:?}")
    })?;
    let bytes: u64 = std::fs::read_dir(&web)
        .map_err(|e| format!("{}: {e}", web.display()))?
        .filter_map(|e| e.ok()?.metadata().ok().map(|m| m.len()))
        .sum();
    ensure(bytes < MAX_PAGE_BYTES, || {
        format!("the page is {bytes} bytes, over {MAX_PAGE_BYTES}")
    })?;
    capture(
        "tests/web/smoke.mjs",
        Command::new("node")
            .arg(root.join("tests/web/smoke.mjs"))
            .arg(&web)
            .arg(out_dir().join("browser-smoke.png"))
            .env("CHROMIUM", chromium)
            .current_dir(&root),
    )
    .map(drop)
}
