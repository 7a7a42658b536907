//! The engine builds without the window: with `--no-default-features` the
//! library's normal dependencies include neither macroquad nor egui (issue
//! 10). Asks cargo itself (`cargo tree`, offline: it reads the lockfile and
//! the registry cache the build already filled).

use std::process::Command;

#[test]
fn without_the_window_feature_no_window_crate_is_a_dependency() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let tree = |extra: &[&str]| {
        let out = Command::new(&cargo)
            .args([
                "tree",
                "--offline",
                "-e",
                "normal",
                "--prefix",
                "none",
                "--manifest-path",
            ])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .args(extra)
            .output()
            .expect("run cargo tree");
        assert!(
            out.status.success(),
            "cargo tree failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let window_crates = |t: &str| {
        t.lines()
            .filter(|l| {
                let name = l.split_whitespace().next().unwrap_or("");
                [
                    "macroquad",
                    "miniquad",
                    "egui",
                    "egui-macroquad",
                    "egui-miniquad",
                    "egui_plot",
                ]
                .contains(&name)
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let headless = tree(&["--no-default-features"]);
    assert!(
        headless.contains("rayon"),
        "the engine's dependencies are listed: {headless}"
    );
    assert_eq!(window_crates(&headless), Vec::<String>::new());
    // And the default build does have them (the test can tell the difference).
    assert!(!window_crates(&tree(&[])).is_empty());
}

#[test]
fn the_engine_compiles_without_the_window_feature() {
    // `cargo check` of the library alone, in its own target folder so it
    // does not fight the running test build over the lock.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("headless");
    let out = Command::new(&cargo)
        .args([
            "check",
            "--offline",
            "--no-default-features",
            "--lib",
            "--manifest-path",
        ])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .arg("--target-dir")
        .arg(&dir)
        .output()
        .expect("run cargo check");
    assert!(
        out.status.success(),
        "cargo check --no-default-features --lib failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
