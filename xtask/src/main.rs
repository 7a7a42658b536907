//! The lab's task runner: `cargo xtask JOB`.
//!
//! `cargo test` runs the host's tests only; everything that needs a tool
//! outside the Rust toolchain (another target's standard library, qemu,
//! Node, Chromium, Xvfb, valgrind) or a second cargo is a job here. `ci`
//! runs what CI runs after installing the tools (`.ci/run`). A job whose
//! tool is missing says SKIPPED with the reason, and fails under CI (`CI`
//! set to anything but empty, `false` or `0`); it never reports ok for work
//! it did not do.

mod browser;
mod headless;
mod platforms;
mod tools;

use std::process::ExitCode;

use clap::{Parser, ValueEnum};

use tools::{cargo, has_program, in_ci, need, Outcome};

/// The lab's checks beyond `cargo test`.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "The lab's checks beyond `cargo test`; `ci` runs all that CI runs."
)]
struct Cli {
    /// What to run, in this order; several may be given.
    #[arg(value_enum, required = true)]
    jobs: Vec<Job>,
}

/// A job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Job {
    /// Everything CI runs: lint, test, then checks.
    Ci,
    /// Every check beyond the host tests: headless, platforms, browser, gui, cachegrind.
    Checks,
    /// cargo fmt --check, cargo clippy (every target, warnings denied), cargo doc (warnings denied).
    Lint,
    /// cargo test: the host's tests; then the task runner's own.
    Test,
    /// The engine without the window: no window crate among its dependencies, and it compiles.
    Headless,
    /// AArch64 under qemu, macOS and Windows cargo check, wasm32-wasip1 under Node's WASI.
    Platforms,
    /// The web build in headless Chromium (tests/web/smoke.mjs).
    Browser,
    /// The window's tests that render under Xvfb (tests/window/gui_smoke.rs, ignored by cargo test).
    Gui,
    /// The simulated-caches report under valgrind (tests/cache_report.rs, ignored by cargo test).
    Cachegrind,
}

impl Job {
    /// The jobs `self` stands for, in the order they run.
    fn expand(self) -> Vec<Job> {
        match self {
            Job::Ci => [vec![Job::Lint, Job::Test], Job::Checks.expand()].concat(),
            Job::Checks => vec![
                Job::Headless,
                Job::Platforms,
                Job::Browser,
                Job::Gui,
                Job::Cachegrind,
            ],
            j => vec![j],
        }
    }

    /// The job's name on the command line.
    fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }

    /// Runs the job: one outcome per check it holds, each with its name.
    fn run(self) -> Vec<(String, Outcome)> {
        let one = |o: Outcome| vec![(self.name(), o)];
        match self {
            Job::Lint => one(lint()),
            Job::Test => one(match status("cargo test", cargo().arg("test")) {
                Outcome::Passed => status(
                    "cargo test --package xtask",
                    cargo().args(["test", "--package", "xtask"]),
                ),
                failed => failed,
            }),
            Job::Headless => one(headless::check()),
            Job::Platforms => vec![
                ("platforms: aarch64".to_string(), platforms::aarch64()),
                (
                    "platforms: macos and windows".to_string(),
                    platforms::macos_windows(),
                ),
                ("platforms: wasm32-wasip1".to_string(), platforms::wasi()),
            ],
            Job::Browser => one(browser::check()),
            Job::Gui => one(gui()),
            Job::Cachegrind => one(cachegrind()),
            Job::Ci | Job::Checks => unreachable!("expanded before running"),
        }
    }
}

/// `cmd`'s exit status as an outcome.
fn status(what: &str, cmd: &mut std::process::Command) -> Outcome {
    match tools::run(what, cmd) {
        Ok(()) => Outcome::Passed,
        Err(e) => Outcome::Failed(e),
    }
}

/// Formatting, clippy and the docs, each with warnings denied.
fn lint() -> Outcome {
    let steps: [(&str, &[&str]); 3] = [
        ("cargo fmt --check", &["fmt", "--all", "--", "--check"]),
        (
            "cargo clippy",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        ),
        ("cargo doc", &["doc", "--no-deps", "--workspace"]),
    ];
    for (what, args) in steps {
        let mut cmd = cargo();
        cmd.args(args).env("RUSTDOCFLAGS", "-D warnings");
        if let Outcome::Failed(e) = status(what, &mut cmd) {
            return Outcome::Failed(e);
        }
    }
    Outcome::Passed
}

/// The window's tests that need a display, run under xvfb-run (each test
/// starts its own server) or on the current display.
fn gui() -> Outcome {
    if !has_program("xvfb-run") && std::env::var_os("DISPLAY").is_none() {
        return Outcome::Missing {
            missing: vec!["xvfb-run (and no DISPLAY)".to_string()],
            install: "apt-get install xvfb xauth libgl1-mesa-dri libglx-mesa0 libgl1 libx11-6 libxi6 libxkbcommon0",
        };
    }
    status(
        "cargo test --test window -- --ignored",
        cargo().args(["test", "--test", "window", "--", "--ignored"]),
    )
}

/// The simulated-caches report under valgrind's callgrind.
fn cachegrind() -> Outcome {
    let mut missing = Vec::new();
    need(&mut missing, has_program("valgrind"), "valgrind");
    if !missing.is_empty() {
        return Outcome::Missing {
            missing,
            install: "apt-get install valgrind",
        };
    }
    status(
        "cargo test --test cache_report -- --ignored",
        cargo().args([
            "test",
            "--test",
            "cache_report",
            "--",
            "--ignored",
            "--nocapture",
        ]),
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ci = in_ci();
    let mut jobs: Vec<Job> = Vec::new();
    for j in cli.jobs.iter().flat_map(|j| j.expand()) {
        if !jobs.contains(&j) {
            jobs.push(j);
        }
    }
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut failed = false;
    for job in jobs {
        for (name, outcome) in job.run() {
            let line = match outcome {
                Outcome::Passed => format!("ok       {name}"),
                Outcome::Missing { missing, install } if ci => {
                    failed = true;
                    format!(
                        "FAILED   {name}: missing {} under CI (install: {install})",
                        missing.join(", ")
                    )
                }
                Outcome::Missing { missing, install } => {
                    format!(
                        "SKIPPED  {name}: missing {} (install: {install})",
                        missing.join(", ")
                    )
                }
                Outcome::Failed(why) => {
                    failed = true;
                    failures.push((name.clone(), why.clone()));
                    format!("FAILED   {name}: {why}")
                }
            };
            eprintln!("xtask: {line}");
            // The summary keeps each outcome's first line; the whole text is above.
            lines.push(line.lines().next().unwrap_or_default().to_string());
        }
    }
    eprintln!(
        "\nxtask summary{}:",
        if ci {
            " (CI: a missing tool fails)"
        } else {
            ""
        }
    );
    for l in &lines {
        eprintln!("  {l}");
    }
    // A log's reader often sees only its end: each failure's reason again,
    // cut to the lines that say what failed.
    for (name, why) in &failures {
        eprintln!(
            "\nxtask: why {name} failed:\n{}",
            tools::failure_digest(why)
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
