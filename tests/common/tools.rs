//! What the tests that drive outside tools (cross targets, qemu, Node,
//! Chromium) need to know about this machine, and the one rule for a missing
//! tool: skip with a message, but fail under CI.

use std::path::PathBuf;
use std::process::Command;

/// Whether the tests run under CI (`CI` set to anything but empty, `false`
/// or `0`), where a missing tool is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether the standard library for the Rust `target` is installed.
pub fn has_target(target: &str) -> bool {
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

/// Whether `program` (a name on the PATH or a path) can be found.
pub fn has_program(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v '{program}'")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Returns false, after saying why, when something `what` needs is missing
/// (`missing` names each piece; `install` says how `.ci/run` installs
/// them); panics with the same message under CI.
pub fn ready<S: AsRef<str>>(what: &str, missing: &[S], install: &str) -> bool {
    if missing.is_empty() {
        return true;
    }
    let names: Vec<&str> = missing.iter().map(AsRef::as_ref).collect();
    let msg = format!(
        "{what}: missing {}; install as .ci/run does ({install})",
        names.join(", ")
    );
    assert!(!in_ci(), "{msg}");
    eprintln!("skipped: {msg}");
    false
}
