//! The engine without the window: with `--no-default-features` the
//! library's normal dependencies include no window crate (cargo tree), and
//! the library compiles (cargo check).

use crate::tools::{capture, capture_quiet, cargo, ensure, CheckResult, Outcome};

/// The window's crates, which the engine alone must not depend on.
const WINDOW_CRATES: [&str; 6] = [
    "macroquad",
    "miniquad",
    "egui",
    "egui-macroquad",
    "egui-miniquad",
    "egui_plot",
];

/// Both checks.
pub fn check() -> Outcome {
    match no_window_crate().and_then(|()| engine_compiles()) {
        Ok(()) => Outcome::Passed,
        Err(e) => Outcome::Failed(e),
    }
}

/// `cargo tree` of the normal dependencies, `extra` flags added.
fn tree(extra: &[&str]) -> Result<String, String> {
    let out = capture_quiet(
        &format!("cargo tree -e normal {}", extra.join(" ")),
        cargo()
            .args([
                "tree",
                "--offline",
                "-e",
                "normal",
                "--prefix",
                "none",
                "-p",
                "spatial-query-lab",
            ])
            .args(extra),
    )?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The window crates among `tree`'s lines.
fn window_crates(tree: &str) -> Vec<String> {
    tree.lines()
        .filter(|l| WINDOW_CRATES.contains(&l.split_whitespace().next().unwrap_or("")))
        .map(str::to_string)
        .collect()
}

fn no_window_crate() -> CheckResult {
    let headless = tree(&["--no-default-features"])?;
    ensure(headless.contains("rayon"), || {
        format!("the engine's dependencies are listed: {headless}")
    })?;
    let found = window_crates(&headless);
    ensure(found.is_empty(), || {
        format!("without the window feature these window crates are dependencies: {found:?}")
    })?;
    // The default build does have them: the check can tell the difference.
    ensure(!window_crates(&tree(&[])?).is_empty(), || {
        "the default build lists no window crate".to_string()
    })
}

fn engine_compiles() -> CheckResult {
    capture(
        "cargo check --no-default-features --lib",
        cargo().args([
            "check",
            "--offline",
            "--no-default-features",
            "--lib",
            "-p",
            "spatial-query-lab",
        ]),
    )
    .map(drop)
}
