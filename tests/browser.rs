//! The browser build, checked from `cargo test`: builds the web folder with
//! `scripts/web-build.sh` (SIMD128 on), checks that it holds the seven page
//! files only, and opens it in headless Chromium with `tests/web/smoke.mjs`
//! (puppeteer-core), which checks that the page gets ready and draws
//! frames, that the overlay and the units are on the screenshot, that a key
//! and a click change the picture, that `?self-check` finds every kernel
//! equal to the naive scan, the pages without WebGL 2, from `file://`, of
//! `?help` and of bad parameters, the simd and threads lessons read as
//! sentences, every export key downloads or copies what it should, and that
//! no console error or warning, exception or `alert()` happened on the way.
//!
//! Needs the Rust target `wasm32-unknown-unknown`, `node`, Debian's
//! `chromium` (or `CHROMIUM` naming a Chromium binary) and
//! `npm install --prefix tests/web`; `.ci/run` installs them. Where they are
//! missing the test says so and passes, except under CI (`CI` set to
//! anything but empty, `false` or `0`), where it fails. The build runs in
//! its own target folder under `CARGO_TARGET_TMPDIR`, so it never waits for
//! the running test build's lock. The default page's screenshot is left at
//! `CARGO_TARGET_TMPDIR/browser-smoke.png`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::tools::{has_program, has_target};

/// Returns false (after saying why) when something is missing outside CI;
/// panics with the same message under CI.
fn ready(missing: &[&str]) -> bool {
    common::tools::ready(
        "browser smoke test",
        missing,
        "rustup target add wasm32-unknown-unknown; apt-get install nodejs npm chromium; npm install --prefix tests/web",
    )
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Runs `cmd`, prints its output, and fails with it when the exit status is
/// not success.
fn run(what: &str, mut cmd: Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{what}:\n{stdout}\n{stderr}");
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}

#[test]
fn web_build_runs_in_headless_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_string());
    let mut missing = Vec::new();
    if !has_target("wasm32-unknown-unknown") {
        missing.push("the Rust target wasm32-unknown-unknown");
    }
    if !has_program("node") {
        missing.push("node");
    }
    if !has_program(&chromium) {
        missing.push("chromium");
    }
    if !root.join("tests/web/node_modules/puppeteer-core").is_dir() {
        missing.push("tests/web/node_modules/puppeteer-core");
    }
    if !ready(&missing) {
        return;
    }

    let web = tmp("web");
    let mut build = Command::new("bash");
    build
        .arg(root.join("scripts/web-build.sh"))
        .arg("--out")
        .arg(&web)
        .current_dir(root)
        // The outer build's flags are for the host; the script picks its own.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env("CARGO_TARGET_DIR", tmp("web-build"));
    run("scripts/web-build.sh", build);
    // The deploy folder is the page and nothing else, small enough to copy.
    let mut names: Vec<String> = std::fs::read_dir(&web)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "gl.js",
            "index.html",
            "presenter.html",
            "quad-url.js",
            "sapp_jsutils.js",
            "spatial-query-lab.wasm",
            "sql.js"
        ],
        "the web folder holds the seven page files only"
    );
    let bytes: u64 = std::fs::read_dir(&web)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    // 6.53 MB on 2026-12-06, of which 89 KB is the source the Code tab
    // shows (src/code.rs includes the files it cuts its excerpts from) and
    // most of the rest the wasm module; the fused kernel's variants (blocks
    // of 1 to 4 queries, each with and without the id test, raw sums and
    // the two-team tally) took it from 6.29 MB that day.
    assert!(bytes < 7_000_000, "the page is {bytes} bytes");

    let mut smoke = Command::new("node");
    smoke
        .arg(root.join("tests/web/smoke.mjs"))
        .arg(&web)
        .arg(tmp("browser-smoke.png"))
        .env("CHROMIUM", &chromium)
        .current_dir(root);
    run("tests/web/smoke.mjs", smoke);
}
