//! What a check needs from this machine, and the one rule for a missing
//! tool: SKIPPED with the reason on a contributor's machine, a failure
//! under CI. Also the commands every check runs through.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How a check ended.
#[derive(Debug)]
pub enum Outcome {
    /// It ran and every assertion held.
    Passed,
    /// It could not run here: what is missing and how `.ci/run` installs it.
    Missing {
        /// Each missing piece (a program, a Rust target, an npm package).
        missing: Vec<String>,
        /// How to install them, as `.ci/run` does.
        install: &'static str,
    },
    /// It ran and failed: why.
    Failed(String),
}

/// A check's result: `Err` holds why it failed (the `?`-friendly form).
pub type CheckResult = Result<(), String>;

/// Whether this runs under CI (`CI` set to anything but empty, `false` or
/// `0`), where a missing tool is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The repository's root (the folder above `xtask/`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ has a parent folder")
        .to_path_buf()
}

/// The folder the checks write into: `target/xtask/` (or under
/// `CARGO_TARGET_DIR`).
pub fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let dir = target.join("xtask");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Whether the standard library for the Rust `target` is installed.
pub fn has_target(target: &str) -> bool {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else {
        return false;
    };
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        .join("lib/rustlib")
        .join(target)
        .join("lib")
        .is_dir()
}

/// Whether `program` (a name on the PATH, or a path) can be run.
pub fn has_program(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// `missing` with `what` added when `present` is false.
pub fn need(missing: &mut Vec<String>, present: bool, what: impl Into<String>) {
    if !present {
        missing.push(what.into());
    }
}

/// Cargo, as the task runner was started with (`CARGO`), with the host's
/// flags removed so a cross build picks its own (`.cargo/config.toml`).
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()));
    c.current_dir(root())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET");
    c
}

/// Runs `cmd` with its output shown as it comes (stdout and stderr are
/// inherited); `Err` names `what` and the exit status when it fails.
pub fn run(what: &str, cmd: &mut Command) -> CheckResult {
    eprintln!("xtask: {what}");
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Runs `cmd`, capturing its output, which is also printed (stderr to
/// stderr, stdout to stderr so that it stays in the log's order); `Err`
/// names `what` and the exit status when it fails.
pub fn capture(what: &str, cmd: &mut Command) -> Result<Output, String> {
    run_captured(what, cmd, true)
}

/// Runs `cmd` as [`capture`] does, but prints its stdout only when it
/// fails (a listing the caller reads, such as `cargo tree`'s).
pub fn capture_quiet(what: &str, cmd: &mut Command) -> Result<Output, String> {
    run_captured(what, cmd, false)
}

fn run_captured(what: &str, cmd: &mut Command, show_stdout: bool) -> Result<Output, String> {
    eprintln!("xtask: {what}");
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    let ok = out.status.success();
    if show_stdout || !ok {
        eprint!("{}", String::from_utf8_lossy(&out.stdout));
    }
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if ok {
        Ok(out)
    } else {
        Err(format!("{what} failed ({})", out.status))
    }
}

/// `Err(message)` unless `cond` holds: the checks' assertion.
pub fn ensure(cond: bool, message: impl FnOnce() -> String) -> CheckResult {
    if cond {
        Ok(())
    } else {
        Err(message())
    }
}

/// The lines of a failure's text that say what failed: its first line,
/// every line naming a panic, a failed test, an error or a signal, and its
/// last 15 lines; at most 80 lines (the first and the last 79), in their
/// order.
pub fn failure_digest(why: &str) -> String {
    const MARKS: [&str; 8] = [
        "panicked",
        "FAILED",
        "failed",
        "error",
        "signal",
        "wasi-run.mjs:",
        "RuntimeError",
        "assertion",
    ];
    let lines: Vec<&str> = why.lines().collect();
    let tail = lines.len().saturating_sub(15);
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, l)| i == 0 || i >= tail || MARKS.iter().any(|m| l.contains(m)))
        .map(|(_, l)| *l)
        .collect();
    let Some(first) = kept.first() else {
        return String::new();
    };
    let skip = kept.len().saturating_sub(79);
    let mut out = vec![*first];
    out.extend(&kept[skip.max(1)..]);
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::failure_digest;

    #[test]
    fn a_digest_keeps_the_first_line_the_marked_lines_and_the_tail() {
        let mut text = vec!["cargo test failed (exit status: 101):".to_string()];
        text.extend((0..200).map(|i| format!("test t{i} ... ok")));
        text.push("thread 'main' panicked at src/x.rs:1:1:".to_string());
        text.extend((0..40).map(|i| format!("line {i}")));
        let digest = failure_digest(&text.join("\n"));
        let lines: Vec<&str> = digest.lines().collect();
        assert_eq!(lines[0], "cargo test failed (exit status: 101):");
        assert!(lines.contains(&"thread 'main' panicked at src/x.rs:1:1:"));
        assert_eq!(lines.last(), Some(&"line 39"));
        assert!(!lines.contains(&"test t5 ... ok"), "{digest}");
        assert_eq!(lines.len(), 1 + 1 + 15);
        assert_eq!(failure_digest(""), "");
    }

    #[test]
    fn a_long_digest_keeps_its_first_line_and_its_last_79() {
        let text: Vec<String> = (0..300).map(|i| format!("error {i}")).collect();
        let digest = failure_digest(&text.join("\n"));
        let lines: Vec<&str> = digest.lines().collect();
        assert_eq!(lines.len(), 80);
        assert_eq!(lines[0], "error 0");
        assert_eq!(lines[1], "error 221");
        assert_eq!(lines[79], "error 299");
    }
}
