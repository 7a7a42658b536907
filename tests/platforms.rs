//! The platforms the demos run on, checked from `cargo test`:
//!
//! - AArch64 Linux: the engine's equivalence and hard-case tests (every
//!   strategy, thread count and kernel, NEON included, against the naive
//!   scan) and the kernels' unit tests, cross-compiled and run under
//!   `qemu-aarch64`;
//! - macOS on Apple silicon and Windows: the library and the binary, window
//!   code included, `cargo check`ed for `aarch64-apple-darwin` and
//!   `x86_64-pc-windows-msvc`;
//! - WebAssembly: the same engine tests and unit tests built for
//!   `wasm32-wasip1` with SIMD128 (`-C target-feature=+simd128`) and run
//!   under Node's WASI (`scripts/wasi-run.mjs`), SIMD128 included; then the
//!   headless `bench` built there compares Scalar and SIMD128; and the
//!   scalar kernel's compiled bodies are checked for SIMD128 instructions
//!   (`examples/scalar_probe.rs`).
//!
//! Each needs its Rust target (`rustup target add ...`) and, for AArch64,
//! Debian's `qemu-user`, `gcc-aarch64-linux-gnu` and `libc6-dev-arm64-cross`,
//! for WebAssembly `node` (18.16 or newer, for `node:wasi`); `.ci/run`
//! installs them. Where they are missing the test says so and
//! passes, except under CI (`CI` set to anything but empty, `false` or `0`),
//! where it fails. Each runs cargo in its own target folder, so it never
//! waits for the running test build's lock.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::tools::{has_program, has_target};

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()));
    // The outer build's flags are for the host; the nested build picks its own.
    c.env_remove("RUSTFLAGS").env_remove("CARGO_BUILD_TARGET");
    c
}

/// Returns false (after saying why) when something `what` needs is missing
/// outside CI; panics with the same message under CI.
fn ready(what: &str, missing: &[String]) -> bool {
    common::tools::ready(
        what,
        missing,
        "rustup target add ..., apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross nodejs",
    )
}

fn target_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn manifest() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")
}

fn run(what: &str, mut cmd: Command) -> String {
    let mut out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run cargo: {e}"));
    // Node itself, not the module, sometimes dies of a segmentation fault
    // on its way out after every test passed (seen once in a loaded CI run
    // here, then not in six runs of the same module): that is the test bed,
    // so such a run is tried again, twice at most. A test that fails, or a
    // trap in the module (exit 101), is never retried.
    for _ in 0..2 {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let node_crashed = stderr.contains("`node ") && stderr.contains("SIGSEGV");
        if out.status.success() || !node_crashed {
            break;
        }
        eprintln!("{what}: node crashed (SIGSEGV) outside the tests; running again");
        out = cmd
            .output()
            .unwrap_or_else(|e| panic!("{what}: cannot run cargo: {e}"));
    }
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
        .args(["--lib", "--test", "spatial"])
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
    // The runs really happened: the lib and spatial binaries reported, and the
    // NEON unit test ran (tests/common asserts NEON is among the kernels).
    let results = out.matches("test result: ok.").count();
    assert!(
        results >= 2,
        "expected the lib and spatial tests to pass:\n{out}"
    );
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

/// Cargo for wasm32-wasip1 with SIMD128 on, running what it builds under
/// Node's WASI, in this test's own target folder.
fn wasi_cargo(args: &[&str]) -> Command {
    let mut cmd = cargo();
    cmd.args(args)
        .args(["--target", "wasm32-wasip1", "--no-default-features"])
        .args(["--manifest-path", manifest(), "--target-dir"])
        .arg(target_dir("wasm32-wasip1"))
        .env(
            "CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS",
            "-C target-feature=+simd128",
        )
        .env(
            "CARGO_TARGET_WASM32_WASIP1_RUNNER",
            concat!("node ", env!("CARGO_MANIFEST_DIR"), "/scripts/wasi-run.mjs"),
        );
    cmd
}

/// The lines of the function `name` in WebAssembly text assembly
/// (`--emit asm`), from its label to its `end_function`.
fn wasm_function<'a>(asm: &'a str, name: &str) -> Vec<&'a str> {
    asm.lines()
        .skip_while(|l| l.trim_end() != format!("{name}:"))
        .take_while(|l| l.trim() != "end_function")
        .collect()
}

#[test]
fn engine_tests_and_bench_pass_under_wasi_with_simd128() {
    let target = "wasm32-wasip1";
    let mut missing = Vec::new();
    if !has_target(target) {
        missing.push(format!("the Rust target {target}"));
    }
    if !has_program("node") {
        missing.push("node".to_string());
    }
    if !ready("WebAssembly tests under Node's WASI", &missing) {
        return;
    }

    // 1. The engine's tests, SIMD128 among the kernels (tests/common
    //    asserts it in a +simd128 build) and its unit test run.
    let out = run(
        "cargo test for wasm32-wasip1 under node",
        wasi_cargo(&["test", "--lib", "--test", "spatial"]),
    );
    let results = out.matches("test result: ok.").count();
    assert!(
        results >= 2,
        "expected the lib and spatial tests to pass:\n{out}"
    );
    assert!(
        out.contains("simd128_collect_and_fused_match_scalar ... ok"),
        "the SIMD128 kernel's own test did not run:\n{out}"
    );

    // 2. The headless bench, built without the window: Scalar and SIMD128
    //    rows both exist and find the same neighbors (Naive over SoA and
    //    SortedGrid run the kernel), and Grid's one kernel-free row too.
    let mut bench = wasi_cargo(&["run", "--profile", "test", "--quiet"]);
    bench
        .args([
            "--bin",
            "spatial-query-lab",
            "--",
            "bench",
            "--units",
            "3000",
        ])
        .args([
            "--strategies",
            "naive,grid,sorted-grid",
            "--kernels",
            "scalar,simd128",
        ])
        .args(["--frames", "2", "--format", "json"]);
    let json = run("bench for wasm32-wasip1 under node", bench);
    let start = json.find('[').expect("a JSON array on stdout");
    let rows: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&json[start..])
        .into_iter()
        .next()
        .expect("one JSON value")
        .unwrap_or_else(|e| panic!("bench JSON: {e}\n{json}"));
    let grid = rows
        .iter()
        .find(|r| r["strategy"] == "grid" && r["kernel"] == "none")
        .unwrap_or_else(|| panic!("no grid row without a kernel:\n{json}"));
    for strategy in ["naive", "sorted-grid"] {
        let neighbors = |kernel: &str| {
            let row = rows
                .iter()
                .find(|r| r["strategy"] == strategy && r["kernel"] == kernel)
                .unwrap_or_else(|| panic!("no {strategy}/{kernel} row:\n{json}"));
            row["neighbors"].as_u64().expect("neighbors")
        };
        let (scalar, simd) = (neighbors("scalar"), neighbors("simd128"));
        assert!(scalar > 0, "{strategy}: no neighbors found:\n{json}");
        assert_eq!(
            scalar, simd,
            "{strategy}: Scalar and SIMD128 neighbor totals"
        );
        assert_eq!(
            grid["neighbors"].as_u64(),
            Some(scalar),
            "grid and {strategy}"
        );
    }

    // 3. The scalar kernel stays scalar: no f32x4 instruction (the distance
    //    test is float arithmetic: a vectorized entry loop needs them) in
    //    the bodies of its three forms. Other v128 code may appear: 16-byte
    //    moves that zero or copy structs, and, in the release profile, the
    //    sum of the range lengths (`out.reserve`, once per call) in i32x4.
    let mut probe = wasi_cargo(&["rustc", "--profile", "test", "--example", "scalar_probe"]);
    probe.args(["--", "--emit", "asm"]);
    run("cargo rustc --emit asm of examples/scalar_probe.rs", probe);
    let dir = target_dir("wasm32-wasip1").join("wasm32-wasip1/debug/examples");
    let asm_path = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "s")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("scalar_probe"))
        })
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .expect("the probe's .s file");
    let asm = std::fs::read_to_string(&asm_path).unwrap();
    for probe in ["probe_scalar_collect", "probe_scalar_fused"] {
        let body = wasm_function(&asm, probe);
        assert!(
            body.len() > 10,
            "{probe} not found in {}",
            asm_path.display()
        );
        let lanes: Vec<&str> = body
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with("f32x4."))
            .collect();
        assert!(
            lanes.is_empty(),
            "{probe}: the scalar kernel was vectorized: {lanes:?}"
        );
    }
}
