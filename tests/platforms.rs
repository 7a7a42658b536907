//! The platforms the demos run on (issue 11), checked from `cargo test`:
//!
//! - AArch64 Linux: the engine's equivalence and hard-case tests (every
//!   strategy, thread count and kernel, NEON included, against the naive
//!   scan) and the kernels' unit tests, cross-compiled and run under
//!   `qemu-aarch64`;
//! - macOS on Apple silicon and Windows: the library and the binary, window
//!   code included, `cargo check`ed for `aarch64-apple-darwin` and
//!   `x86_64-pc-windows-msvc`.
//!
//! Each needs its Rust target (`rustup target add ...`) and, for AArch64,
//! Debian's `qemu-user`, `gcc-aarch64-linux-gnu` and `libc6-dev-arm64-cross`;
//! `.ci/run` installs them. Where they are missing the test says so and
//! passes, except under CI (`CI` set to anything but empty, `false` or `0`),
//! where it fails. Each runs cargo in its own target folder, so it never
//! waits for the running test build's lock.

use std::path::{Path, PathBuf};
use std::process::Command;

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()));
    // The outer build's flags are for the host; the nested build picks its own.
    c.env_remove("RUSTFLAGS").env_remove("CARGO_BUILD_TARGET");
    c
}

/// Whether the standard library for `target` is installed.
fn has_target(target: &str) -> bool {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    sysroot
        .join("lib/rustlib")
        .join(target)
        .join("lib")
        .is_dir()
}

/// Whether `program` is on the PATH.
fn has_program(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Returns false (after saying why) when something `what` needs is missing
/// outside CI; panics with the same message under CI.
fn ready(what: &str, missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    let msg = format!(
        "{what}: missing {}; install as .ci/run does (rustup target add ..., apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross)",
        missing.join(", ")
    );
    assert!(!in_ci(), "{msg}");
    eprintln!("skipped: {msg}");
    false
}

fn target_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn manifest() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")
}

fn run(what: &str, mut cmd: Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run cargo: {e}"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{what} failed:\n{stdout}\n{stderr}");
    format!("{stdout}\n{stderr}")
}

#[test]
fn engine_tests_pass_on_aarch64_under_qemu_with_neon() {
    let target = "aarch64-unknown-linux-gnu";
    let mut missing = Vec::new();
    if !has_target(target) {
        missing.push(format!("the Rust target {target}"));
    }
    for p in ["qemu-aarch64", "aarch64-linux-gnu-gcc"] {
        if !has_program(p) {
            missing.push(p.to_string());
        }
    }
    if !ready("AArch64 tests under qemu", &missing) {
        return;
    }
    let mut cmd = cargo();
    cmd.args(["test", "--target", target, "--no-default-features"])
        .args([
            "--lib",
            "--test",
            "spatial_equivalence",
            "--test",
            "spatial_extremes",
            "--test",
            "spatial_cases",
        ])
        .args(["--manifest-path", manifest(), "--target-dir"])
        .arg(target_dir("aarch64"))
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER",
            "aarch64-linux-gnu-gcc",
        )
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER",
            "qemu-aarch64 -L /usr/aarch64-linux-gnu",
        );
    let out = run("cargo test for aarch64 under qemu", cmd);
    // The runs really happened: the three test binaries reported, and the
    // NEON unit test ran (tests/common asserts NEON is among the kernels).
    let results = out.matches("test result: ok.").count();
    assert!(results >= 3, "expected three test binaries to pass:\n{out}");
    assert!(
        out.contains("table_and_walk_compaction_match_scalar ... ok"),
        "the NEON kernel's own test did not run:\n{out}"
    );
}

#[test]
fn window_code_compiles_for_macos_arm_and_windows() {
    for target in ["aarch64-apple-darwin", "x86_64-pc-windows-msvc"] {
        if !ready(&format!("cargo check for {target}"), &{
            let mut m = Vec::new();
            if !has_target(target) {
                m.push(format!("the Rust target {target}"));
            }
            m
        }) {
            continue;
        }
        let mut cmd = cargo();
        cmd.args(["check", "--target", target, "--lib", "--bins"])
            .args(["--manifest-path", manifest(), "--target-dir"])
            .arg(target_dir(target));
        run(&format!("cargo check --target {target}"), cmd);
    }
}
