//! The platforms the demos run on beyond this machine's own:
//!
//! - AArch64 Linux: the engine's unit tests and its equivalence and
//!   hard-case tests (every strategy, thread count and kernel, NEON
//!   included, against the naive scan), cross-compiled and run under
//!   `qemu-aarch64` through cargo's target runner (`.cargo/config.toml`);
//! - macOS on Apple silicon and Windows: the library and the binary,
//!   window code included, `cargo check`ed;
//! - WebAssembly: the same tests for `wasm32-wasip1` with SIMD128, run
//!   under Node's WASI (`scripts/wasi-run.mjs`, the target's runner); the
//!   headless `bench` built there compares Scalar and SIMD128; and the
//!   scalar kernel's compiled bodies are checked for SIMD128 instructions
//!   (`examples/scalar_probe.rs`).

use std::process::Command;

use crate::tools::{capture, cargo, ensure, has_program, has_target, need, CheckResult, Outcome};

const INSTALL: &str = "rustup target add aarch64-unknown-linux-gnu aarch64-apple-darwin x86_64-pc-windows-msvc wasm32-wasip1; apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross nodejs";

/// AArch64 Linux under qemu: the library's and `tests/spatial`'s tests.
pub fn aarch64() -> Outcome {
    let target = "aarch64-unknown-linux-gnu";
    let mut missing = Vec::new();
    need(
        &mut missing,
        has_target(target),
        format!("the Rust target {target}"),
    );
    need(&mut missing, has_program("qemu-aarch64"), "qemu-aarch64");
    need(
        &mut missing,
        has_program("aarch64-linux-gnu-gcc"),
        "aarch64-linux-gnu-gcc",
    );
    if !missing.is_empty() {
        return Outcome::Missing {
            missing,
            install: INSTALL,
        };
    }
    into_outcome(engine_tests(
        "cargo test for aarch64 under qemu",
        target,
        "table_and_walk_compaction_match_scalar",
    ))
}

/// macOS on Apple silicon and Windows: `cargo check` of the library and
/// the binary, window included.
pub fn macos_windows() -> Outcome {
    let targets = ["aarch64-apple-darwin", "x86_64-pc-windows-msvc"];
    let mut missing = Vec::new();
    for t in targets {
        need(&mut missing, has_target(t), format!("the Rust target {t}"));
    }
    if !missing.is_empty() {
        return Outcome::Missing {
            missing,
            install: INSTALL,
        };
    }
    into_outcome(targets.iter().try_for_each(|t| {
        capture(
            &format!("cargo check --target {t}"),
            cargo().args(["check", "--target", t, "--lib", "--bins"]),
        )
        .map(drop)
    }))
}

/// WebAssembly (wasm32-wasip1 with SIMD128) under Node's WASI: the engine's
/// tests, `bench` with Scalar against SIMD128, and the scalar kernel
/// staying scalar.
pub fn wasi() -> Outcome {
    let target = "wasm32-wasip1";
    let mut missing = Vec::new();
    need(
        &mut missing,
        has_target(target),
        format!("the Rust target {target}"),
    );
    need(&mut missing, has_program("node"), "node");
    if !missing.is_empty() {
        return Outcome::Missing {
            missing,
            install: INSTALL,
        };
    }
    into_outcome(
        engine_tests(
            "cargo test for wasm32-wasip1 under node",
            target,
            "simd128_collect_and_fused_match_scalar",
        )
        .and_then(|()| wasi_bench())
        .and_then(|()| scalar_stays_scalar()),
    )
}

fn into_outcome(r: CheckResult) -> Outcome {
    match r {
        Ok(()) => Outcome::Passed,
        Err(e) => Outcome::Failed(e),
    }
}

/// Cargo for `target` without the window, its binaries run by the
/// target's runner.
fn cross(args: &[&str], target: &str) -> Command {
    let mut c = cargo();
    c.args(args)
        .args(["--target", target, "--no-default-features"]);
    c
}

/// Runs `cmd`; a run whose Node dies of a segmentation fault on its way
/// out after every test passed (seen in loaded runs of the WASI runner,
/// never in the module's own code: a trap exits 101) is run again, twice
/// at most. Returns stdout and stderr together.
fn run_retrying_node(what: &str, cmd: &mut Command) -> Result<String, String> {
    for attempt in 0..3 {
        let out = cmd
            .output()
            .map_err(|e| format!("{what}: cannot start cargo: {e}"))?;
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let node_crashed = text.contains("wasi-run.mjs") && text.contains("SIGSEGV");
        if out.status.success() {
            eprint!("{text}");
            return Ok(text);
        }
        if !node_crashed || attempt == 2 {
            return Err(format!("{what} failed ({}):\n{text}", out.status));
        }
        eprintln!("xtask: {what}: node crashed (SIGSEGV) outside the tests; running again");
    }
    unreachable!("the loop returns on its last attempt")
}

/// The library's and `tests/spatial`'s tests for `target` through its
/// runner; `kernel_test` (the target's own kernel test) must have run.
fn engine_tests(what: &str, target: &str, kernel_test: &str) -> CheckResult {
    eprintln!("xtask: {what}");
    let out = run_retrying_node(
        what,
        &mut cross(&["test", "--lib", "--test", "spatial"], target),
    )?;
    // The runs really happened: the lib and spatial binaries reported, and
    // the target's kernel test ran (tests/common asserts the kernel is
    // among the kernels there).
    ensure(out.matches("test result: ok.").count() >= 2, || {
        format!("{what}: expected the lib and spatial tests to pass:\n{out}")
    })?;
    ensure(out.contains(&format!("{kernel_test} ... ok")), || {
        format!("{what}: the kernel's own test {kernel_test} did not run:\n{out}")
    })
}

/// The headless bench built for WASI: Scalar and SIMD128 rows both exist
/// and find the same neighbors (Naive over SoA and SortedGrid run the
/// kernel), and Grid's one kernel-free row too.
fn wasi_bench() -> CheckResult {
    let what = "bench for wasm32-wasip1 under node";
    eprintln!("xtask: {what}");
    let mut bench = cross(&["run", "--profile", "test", "--quiet"], "wasm32-wasip1");
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
            "--frames",
            "2",
            "--format",
            "json",
        ]);
    let json = run_retrying_node(what, &mut bench)?;
    let start = json
        .find('[')
        .ok_or_else(|| format!("{what}: no JSON array on stdout:\n{json}"))?;
    let rows: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&json[start..])
        .into_iter()
        .next()
        .ok_or_else(|| format!("{what}: no JSON value"))?
        .map_err(|e| format!("{what}: bench JSON: {e}\n{json}"))?;
    let row = |strategy: &str, kernel: &str| {
        rows.iter()
            .find(|r| r["strategy"] == strategy && r["kernel"] == kernel)
            .ok_or_else(|| format!("{what}: no {strategy}/{kernel} row:\n{json}"))
    };
    let grid = row("grid", "none")?;
    for strategy in ["naive", "sorted-grid"] {
        let neighbors = |kernel: &str| row(strategy, kernel).map(|r| r["neighbors"].as_u64());
        let (scalar, simd) = (neighbors("scalar")?, neighbors("simd128")?);
        ensure(scalar.is_some_and(|n| n > 0), || {
            format!("{strategy}: no neighbors found:\n{json}")
        })?;
        ensure(scalar == simd, || {
            format!("{strategy}: Scalar {scalar:?} and SIMD128 {simd:?} neighbor totals differ")
        })?;
        ensure(grid["neighbors"].as_u64() == scalar, || {
            format!("grid and {strategy} neighbor totals differ:\n{json}")
        })?;
    }
    Ok(())
}

/// The lines of the function `name` in WebAssembly text assembly
/// (`--emit asm`), from its label to its `end_function`.
fn wasm_function<'a>(asm: &'a str, name: &str) -> Vec<&'a str> {
    asm.lines()
        .skip_while(|l| l.trim_end() != format!("{name}:"))
        .take_while(|l| l.trim() != "end_function")
        .collect()
}

/// The scalar kernel stays scalar: no f32x4 instruction (the distance test
/// is float arithmetic: a vectorized entry loop needs them) in the bodies
/// of its forms. Other v128 code may appear: 16-byte moves that zero or
/// copy structs, and, in the release profile, the sum of the range lengths
/// (`out.reserve`, once per call) in i32x4.
fn scalar_stays_scalar() -> CheckResult {
    let what = "cargo rustc --emit asm of examples/scalar_probe.rs";
    let mut probe = cross(
        &["rustc", "--profile", "test", "--example", "scalar_probe"],
        "wasm32-wasip1",
    );
    probe.args(["--", "--emit", "asm"]);
    capture(what, &mut probe)?;
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::tools::root().join("target"));
    let dir = target_dir.join("wasm32-wasip1/debug/examples");
    let asm_path = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "s")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("scalar_probe"))
        })
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .ok_or_else(|| format!("no scalar_probe .s file in {}", dir.display()))?;
    let asm =
        std::fs::read_to_string(&asm_path).map_err(|e| format!("{}: {e}", asm_path.display()))?;
    for probe in ["probe_scalar_collect", "probe_scalar_fused"] {
        let body = wasm_function(&asm, probe);
        ensure(body.len() > 10, || {
            format!("{probe} not found in {}", asm_path.display())
        })?;
        let lanes: Vec<&str> = body
            .iter()
            .map(|l| l.trim())
            .filter(|l| l.starts_with("f32x4."))
            .collect();
        ensure(lanes.is_empty(), || {
            format!("{probe}: the scalar kernel was vectorized: {lanes:?}")
        })?;
    }
    Ok(())
}
