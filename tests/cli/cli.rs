//! The binary's flags, the headless `bench` mode, and the one-line refusals
//! when no window can open.

use std::process::Command;

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_spatial-query-lab"))
}

/// Every invalid value exits non-zero with exactly one line on stderr that
/// names the flag; no window is opened.
#[test]
fn invalid_flags_exit_nonzero_with_one_line_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--units", "0"], "--units"),
        (&["--units", "-5"], "--units"),
        (&["--units", "abc"], "--units"),
        (&["--units", "2000000"], "--units"),
        (&["--radius", "0"], "--radius"),
        (&["--radius", "-1"], "--radius"),
        (&["--radius", "nan"], "--radius"),
        (&["--radius", "inf"], "--radius"),
        (&["--cell-size", "0"], "--cell-size"),
        (&["--cell-size", "-1"], "--cell-size"),
        (&["--cell-size", "NaN"], "--cell-size"),
        (&["--threads", "0"], "--threads"),
        (&["--frames", "0"], "--frames"),
        (&["--kernel", "mmx"], "--kernel"),
        (&["--strategy", "octree"], "--strategy"),
        (&["--color", "rainbow"], "--color"),
        (&["bench", "--units", "0"], "--units"),
        (&["bench", "--units", "1000,-3"], "--units"),
        (&["bench", "--units", "-3"], "--units"),
        (&["bench", "--frames", "-5"], "--frames"),
        (&["bench", "--threads", "-1"], "--threads"),
        (&["bench", "--frames", "0"], "--frames"),
        (&["bench", "--threads", "0"], "--threads"),
        (&["bench", "--format", "xml"], "--format"),
        (&["bench", "--workload", "spiral"], "--workload"),
        (&["--seed", "-1"], "--seed"),
        (&["bench", "--seed", "x"], "--seed"),
        (&["bench", "--warmup", "-1"], "--warmup"),
        (&["bench", "--cell-sizes", "0"], "--cell-sizes"),
        (&["--vertex-layout", "zip"], "--vertex-layout"),
        (&["--normal-bits", "12"], "--normal-bits"),
        (&["--mesh", "dragon"], "--mesh"),
        // --window-size is an alias of --window: clap names --window.
        (&["--window-size", "0x600"], "--window"),
        (&["--window-size", "1280"], "--window"),
        (&["--window-size", "32768x10"], "--window"),
        (&["--window-size=-5x10"], "--window"),
        (&["--window", "800xabc"], "--window"),
        (&["--window", "0x768"], "--window"),
        (&["--ui-scale", "0.2"], "--ui-scale"),
        (&["--ui-scale", "3.5"], "--ui-scale"),
        (&["--ui-scale", "abc"], "--ui-scale"),
        (&["--ui-scale", "nan"], "--ui-scale"),
        (&["--ui-scale", "-1"], "--ui-scale"),
        (&["--fullscreen=yes"], "--fullscreen"),
        (&["render-bench", "--frames", "0"], "--frames"),
        (&["render-bench", "--units", "0"], "--units"),
        (&["render-bench", "--warmup", "-1"], "--warmup"),
        (
            &["render-bench", "--vertex-layouts", "zip"],
            "--vertex-layouts",
        ),
        (&["bench", "--cell-sizes", "5,-1"], "--cell-sizes"),
        (&["bench", "--cell-sizes", "5,nan"], "--cell-sizes"),
        (&["bench", "--cell-sizes", "inf"], "--cell-sizes"),
        // One range per setting (case Y34): what a file refuses, a flag refuses.
        (&["bench", "--cell-sizes", "1e-30"], "--cell-sizes"),
        (&["bench", "--radius", "1e-30"], "--radius"),
        (&["--seed", "9223372036854775808"], "--seed"),
        (&["bench", "--cell-sizes", "5,,10"], "--cell-sizes"),
        (&["bench", "--skip-above", "0"], "--skip-above"),
        (&["bench", "--separation", "-1"], "--separation"),
        (&["bench", "--separation", "9"], "--separation"),
        (&["bench", "--skip-above", "inf"], "--skip-above"),
        (&["bench", "--layouts", "soa,objects"], "--layouts"),
        (&["--layout", "fat"], "--layout"),
        (&["--pass", "lists"], "--pass"),
        (&["bench", "--pass", "fused,"], "--pass"),
        (&["--select", "99999999"], "--select"),
        (&["--units", "500", "--select", "500"], "--select"),
        (&["--screenshot", "shot.jpg"], "--screenshot"),
        (&["--world", "0"], "--world"),
        (&["bench", "--world", "1e9"], "--world"),
        (&["bench", "--radius", "-1"], "--radius"),
        (&["--scenario", "/nonexistent/s.toml"], "--scenario"),
        (
            &["bench", "--scenario", "/nonexistent/s.toml"],
            "--scenario",
        ),
    ];
    for (args, flag) in cases {
        let out = exe().args(*args).output().expect("run the binary");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} should fail");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: want one line, got: {err}"
        );
        assert!(
            err.contains(flag),
            "{args:?}: message does not name {flag}: {err}"
        );
    }
}

#[test]
fn help_exits_zero() {
    let out = exe().arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--screenshot") && text.contains("bench"),
        "{text}"
    );
}

/// The flags' help quotes each numeric setting's range from the settings
/// table, so a range changed there cannot leave the help behind: every
/// numeric row on the window surface in `--help`, every numeric row with a
/// bench flag in `bench --help`, each with its help sentence.
#[test]
fn help_quotes_the_table_ranges() {
    use spatial_query_lab::settings::rows::{BenchFlag, Surfaces, ROWS};
    let help = |args: &[&str]| {
        let out = exe().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        // clap wraps long help: compare with the white space collapsed.
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (window, bench) = (help(&["--help"]), help(&["bench", "--help"]));
    let mut checked = 0;
    for r in ROWS.iter().filter(|r| r.range.is_some()) {
        let want = r.span_text();
        if r.on.has(Surfaces::WINDOW) {
            assert!(
                window.contains(&format!("--{}", r.flag)),
                "--help lacks --{}",
                r.flag
            );
            assert!(
                window.contains(r.help) && window.contains(&want),
                "--help lacks {}'s help or range {want:?}:\n{window}",
                r.key
            );
            checked += 1;
        }
        if r.bench != BenchFlag::None {
            assert!(
                bench.contains(r.help) && bench.contains(&want),
                "bench --help lacks {}'s help or range {want:?}:\n{bench}",
                r.key
            );
        }
    }
    assert!(checked >= 9, "every numeric setting has a window flag");
}

/// `bench --format json` prints one array of objects with the documented
/// keys, and every combination finds the same number of neighbor pairs.
#[test]
fn bench_json_has_the_documented_keys_and_equal_neighbor_counts() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "1500",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--threads",
            "1,2",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The first stderr line names the machine: CPU, cores, cache sizes.
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().unwrap_or_default();
    let machine = spatial_query_lab::measure::machine::Machine::current();
    assert_eq!(first, format!("bench: machine: {}", machine.summary()));
    assert!(
        first.contains(" cores") || first.contains(" core,"),
        "{first}"
    );
    assert!(
        first.contains("L1d ") || first.ends_with("caches unknown"),
        "{first}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let rows = v.as_array().expect("an array");
    let ran: Vec<&serde_json::Value> = rows.iter().filter(|r| r.get("skipped").is_none()).collect();
    // Naive and SortedGrid x available kernels, Grid (no kernel) once, x 2
    // thread counts.
    let kernels = spatial_query_lab::engine::spatial::Kernel::available().count();
    assert_eq!(ran.len(), (2 * kernels + 1) * 2);
    assert!(ran
        .iter()
        .all(|r| (r["strategy"] == "grid") == (r["kernel"] == "none")));
    for r in &ran {
        for key in [
            "strategy",
            "kernel",
            "threads",
            "units",
            "frames",
            "median_ms",
            "candidates",
            "neighbors",
            "layout",
            "pass",
            "cell_size",
            "deaths",
            "spawns",
            "l1d_misses_per_query",
            "llc_misses_per_query",
            "min_ms",
            "max_ms",
            "cell_over_r",
            "candidates_per_neighbor",
            "working_set_bytes",
            "machine",
        ] {
            assert!(r.get(key).is_some(), "missing {key} in {r}");
        }
        // The spread: each phase's min <= median <= max.
        for key in ["move", "rebuild", "query", "apply", "total"] {
            let (lo, mid, hi) = (
                r["min_ms"][key].as_f64().unwrap(),
                r["median_ms"][key].as_f64().unwrap(),
                r["max_ms"][key].as_f64().unwrap(),
            );
            assert!(lo <= mid && mid <= hi, "{key}: {lo} {mid} {hi} in {r}");
        }
        let cpn = r["candidates_per_neighbor"].as_f64().unwrap();
        let expect = r["candidates"].as_f64().unwrap() / r["neighbors"].as_f64().unwrap();
        assert!((cpn - expect).abs() < 1e-9 * expect, "{r}");
        if r["strategy"] == "naive" {
            assert!(r["cell_over_r"].is_null(), "{r}");
        } else {
            assert_eq!(r["cell_over_r"].as_f64(), Some(1.0), "{r}");
        }
        assert!(
            r["working_set_bytes"].as_u64().is_some_and(|b| b > 0),
            "{r}"
        );
        assert_eq!(r["machine"]["cpu"], machine.cpu.as_str(), "{r}");
        assert!(r["machine"]["caches"].is_array(), "{r}");
        assert!(
            r["machine"]["cores"].as_u64().is_some_and(|c| c >= 1),
            "{r}"
        );
        assert_eq!(r["layout"], "soa");
        assert_eq!(r["pass"], "fused", "fused is the bench default");
        // Hardware counters: numbers where perf_event_open works, null elsewhere.
        assert!(
            r["l1d_misses_per_query"].is_null() || r["l1d_misses_per_query"].as_f64().is_some()
        );
        for key in ["move", "rebuild", "query", "total"] {
            assert!(
                r["median_ms"][key].as_f64().is_some_and(|v| v >= 0.0),
                "median_ms.{key} in {r}"
            );
        }
        assert_eq!(r["units"], 1500);
    }
    let n0 = ran[0]["neighbors"].as_u64().unwrap();
    assert!(n0 > 0);
    assert!(
        ran.iter().all(|r| r["neighbors"].as_u64() == Some(n0)),
        "neighbor counts differ: {rows:?}"
    );
}

#[test]
fn bench_markdown_reports_speedups() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "1000",
            "--frames",
            "2",
            "--warmup",
            "0",
            "--kernels",
            "scalar",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("| 1000 | resident | soa | fused | naive | scalar | 1 |"),
        "{text}"
    );
    assert!(
        text.contains("| reference | reference |"),
        "the reference row says so: {text}"
    );
    assert!(
        text.contains("the speedups are ratios, not verdicts"),
        "one round: {text}"
    );
    // A saved table names the machine it was measured on.
    let machine = spatial_query_lab::measure::machine::Machine::current().summary();
    assert!(text.contains(&format!("\nMachine: {machine}\n")), "{text}");
}

/// `bench ... 2>&1 | head -2`: the reader goes away after two lines; the
/// bench still finishes without a panic, with a closed pipe's quiet status
/// (0, or 141 when its results found the pipe closed).
#[test]
fn bench_survives_a_reader_that_stops_early() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = exe()
        .args([
            "bench",
            "--units",
            "800,900",
            "--strategies",
            "grid",
            "--kernels",
            "scalar",
        ])
        .args(["--frames", "2", "--warmup", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("bench:"), "{first}");
    drop(child.stdout.take());
    // Both pipes are now closed.
    let status = child.wait().unwrap();
    assert!(
        matches!(status.code(), Some(0 | 141)),
        "exit status {status}"
    );
}

/// The modes whose results go to stdout, each cheap: help texts, `bench`
/// in both formats, the lesson list and a one-frame lesson.
const PRINTING: &[&[&str]] = &[
    &["--help"],
    &["bench", "--help"],
    &["lesson", "--help"],
    &["render-bench", "--help"],
    &[
        "bench", "--units", "1000", "--frames", "2", "--format", "json",
    ],
    &["bench", "--units", "1000", "--frames", "2"],
    &["lesson"],
    &[
        "lesson",
        "algorithms",
        "--format",
        "md",
        "--frames",
        "1",
        "--rounds",
        "1",
        "--max-units",
        "1500",
    ],
];

/// Case X1/X4: `> /dev/full` (every write fails with ENOSPC) is one line
/// naming the output and a non-zero exit, never exit 0 with nothing
/// written, never a panic.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_one_line_and_a_nonzero_exit() {
    for args in PRINTING {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = exe().args(*args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("error: cannot write the output to standard output: No space left"),
            "{args:?}: {err}"
        );
    }
}

/// Case X1: `| head -1` with the reader gone before the results are
/// written ends quietly with status 0 or 141 (what a shell shows for
/// `cat` there), never a panic.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::process::Stdio;
    for args in PRINTING {
        let mut child = exe()
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 141)),
            "{args:?}: {} {err}",
            out.status
        );
        assert!(
            !err.contains("panicked") && !err.contains("error:"),
            "{args:?}: {err}"
        );
    }
}

/// A skipped combination has `null` times in JSON (not zeros that read as
/// measurements), with its reason and estimate; steering is stated.
#[test]
fn skipped_rows_have_null_times_and_the_header_states_steering() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "50000",
            "--strategies",
            "naive",
            "--kernels",
            "scalar",
        ])
        .args(["--skip-above", "0.001", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = &v.as_array().unwrap()[0];
    assert!(row["skipped"].as_str().is_some(), "{row}");
    assert!(row["median_ms"].is_null(), "{row}");
    assert!(
        row["estimated_total_ms"].as_f64().is_some_and(|t| t > 1.0),
        "{row}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("steering off"), "{err}");
    let out = exe()
        .args([
            "bench",
            "--units",
            "500",
            "--strategies",
            "grid",
            "--kernels",
            "scalar",
        ])
        .args(["--frames", "1", "--warmup", "0", "--separation", "1.5"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("separation 1.5 (steering on"), "{err}");
}

/// `bench --pass collect,fused` runs both passes with the same neighbor
/// totals and tells them apart in the `pass` column; `--roofline` appends
/// the roofline table with both measured limits.
#[test]
fn bench_compares_passes_and_prints_the_roofline() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "2000",
            "--frames",
            "2",
            "--warmup",
            "0",
            "--strategies",
            "sorted-grid",
            "--kernels",
            "scalar",
            "--pass",
            "collect,fused",
            "--roofline",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| 2000 | resident | soa |") && l.contains("| sorted-grid |"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].contains("| collect |") && rows[1].contains("| fused |"),
        "{text}"
    );
    let neighbors = |row: &str| {
        row.split('|')
            .map(str::trim)
            .nth(15)
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(neighbors(rows[0]), neighbors(rows[1]), "{text}");
    assert!(neighbors(rows[0]).parse::<u64>().unwrap() > 0, "{text}");
    assert!(text.contains("Roofline of the sorted-grid rows"), "{text}");
    assert!(
        text.contains("GB/s") && text.contains("ns per candidate test"),
        "{text}"
    );
    assert!(
        text.contains("| 2000 | resident | fused | scalar | 1 | query |"),
        "{text}"
    );
}

/// A broken scenario file is answered with one line naming the file, the
/// line, the field and the allowed range, and exit code 2, for the window
/// (before any window opens) and for `bench`.
#[test]
fn a_broken_scenario_file_is_one_line_with_file_line_field_and_range() {
    let dir = std::env::temp_dir().join(format!("sql-cli-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "units = 2000\nseparation = 7\n").unwrap();
    for args in [vec![], vec!["bench"]] {
        let out = exe()
            .args(&args)
            .arg("--scenario")
            .arg(&bad)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        let want = format!("{}:2: separation: must be 0 to 5, got 7", bad.display());
        assert!(err.contains(&want), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `bench --scenario FILE` takes the file's units and workload; a flag next
/// to it overrides the file.
#[test]
fn bench_takes_the_scenario_and_flags_override_it() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/scenarios/battle.toml");
    let run = |extra: &[&str]| {
        let out = exe()
            .args([
                "bench",
                "--scenario",
                file,
                "--frames",
                "1",
                "--warmup",
                "0",
            ])
            .args([
                "--strategies",
                "grid",
                "--kernels",
                "scalar",
                "--format",
                "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = rows[0].clone();
        (
            row["units"].as_u64().unwrap(),
            row["workload"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(run(&[]), (20_000, "battle".to_string()));
    assert_eq!(run(&["--units", "2000"]), (2_000, "battle".to_string()));
    assert_eq!(
        run(&["--units", "2000", "--workload", "hotspot"]),
        (2_000, "hotspot".to_string())
    );
}

/// A scenario file in a fresh folder of its own (removed by the caller).
fn scenario_file(tag: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("sql-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.toml");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// `bench --scenario FILE` runs with every engine setting the file names
/// (layout, reorder, kernel, pass here; strategies not named: all three),
/// and `--layouts` next to it overrides the file's layout only.
#[test]
fn bench_takes_every_engine_setting_from_the_scenario() {
    let (dir, file) = scenario_file(
        "engine",
        "units = 2000\nlayout = \"aos\"\nreorder = \"off\"\nkernel = \"scalar\"\npass = \"collect\"\n",
    );
    let rows = |extra: &[&str]| -> Vec<[String; 5]> {
        let out = exe()
            .args([
                "bench", "--frames", "2", "--warmup", "0", "--format", "json",
            ])
            .arg("--scenario")
            .arg(&file)
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let key = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap().to_string();
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert_eq!(r["units"], 2000, "{r}");
                assert!(r.get("skipped").is_none(), "{r}");
                ["strategy", "layout", "reorder", "kernel", "pass"].map(|k| key(r, k))
            })
            .collect()
    };
    // Grid runs no kernel, nor Naive through AoS: their kernel is "none".
    let want = |strategy: &str, layout: &str| {
        let kernel = match (strategy, layout) {
            ("sorted-grid", _) | ("naive", "soa") => "scalar",
            _ => "none",
        };
        [strategy, layout, "off", kernel, "collect"].map(str::to_string)
    };
    assert_eq!(
        rows(&[]),
        vec![
            want("naive", "aos"),
            want("grid", "aos"),
            want("sorted-grid", "aos")
        ]
    );
    assert_eq!(
        rows(&["--layouts", "soa", "--strategies", "grid"]),
        vec![want("grid", "soa")]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bad value in any engine field of a scenario is one line naming the
/// file, the line, the field and the allowed names, exit code 2, for
/// `bench` and for the window (before any window opens).
#[test]
fn a_bad_engine_value_in_a_scenario_is_one_line_naming_file_line_and_field() {
    let cases = [
        (
            "layout = \"fat\"",
            "layout: must be one of aos-pointers, aos, soa, hot-cold, got \"fat\"",
        ),
        (
            "reorder = \"hilbert\"",
            "reorder: must be one of off, cells, morton, resident, got \"hilbert\"",
        ),
        (
            "kernel = \"mmx\"",
            "kernel: must be one of scalar, sse, avx2, avx512, neon, simd128, best, got \"mmx\"",
        ),
        (
            "pass = \"lists\"",
            "pass: must be one of collect, fused, got \"lists\"",
        ),
    ];
    for (k, (line, message)) in cases.iter().enumerate() {
        let (dir, file) = scenario_file(&format!("bad{k}"), &format!("units = 2000\n{line}\n"));
        for mode in [&["bench"][..], &[][..]] {
            let out = exe()
                .args(mode)
                .arg("--scenario")
                .arg(&file)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{mode:?} {line}: {err}");
            assert_eq!(
                err.trim_end(),
                format!("error: --scenario: {}:2: {message}", file.display()),
                "{mode:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A display number with no X server on this machine (neither the socket
/// file nor the abstract socket libxcb tries first), from 77 up.
#[cfg(target_os = "linux")]
fn free_display() -> u32 {
    let sockets = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    (77..1000)
        .find(|n| {
            let path = format!("/tmp/.X11-unix/X{n}");
            !std::path::Path::new(&path).exists()
                && !sockets.lines().any(|l| l.ends_with(&format!(" @{path}")))
        })
        .expect("a free display number")
}

/// Runs the binary with `args` and the environment changed by `env`, even
/// with a backtrace asked for; asserts exit code 2 and exactly one line on
/// stderr that is an error and no panic report; returns that line.
#[cfg(target_os = "linux")]
fn window_refused(args: &[&str], env: impl FnOnce(&mut Command)) -> String {
    let mut cmd = exe();
    cmd.args(args).env("RUST_BACKTRACE", "1");
    env(&mut cmd);
    let out = cmd.output().expect("run the binary");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    for word in ["panicked", "backtrace", "RUST_BACKTRACE"] {
        assert!(!err.contains(word), "{args:?}: {err}");
    }
    err
}

/// A stale display (an Xvfb that exited, an ssh session that ended): one
/// line naming it and how to run headless, exit code 2, for the window and
/// for `render-bench`.
#[cfg(target_os = "linux")]
#[test]
fn a_display_with_no_x_server_is_one_line_and_exit_code_2() {
    let display = format!(":{}", free_display());
    for args in [&["--frames", "1"][..], &["render-bench", "--frames", "1"]] {
        let err = window_refused(args, |c| {
            c.env("DISPLAY", &display).env_remove("WAYLAND_DISPLAY");
        });
        assert!(err.contains(&format!("DISPLAY={display}")), "{err}");
        assert!(err.contains("xvfb-run -a -s"), "{err}");
    }
}

/// The presenter flags parse (`--window`, its alias `--window-size`,
/// `--fullscreen`, `--ui-scale` at both ends of its range): the run gets as
/// far as the display check, which refuses for want of an X server.
#[cfg(target_os = "linux")]
#[test]
fn the_presenter_flags_are_accepted_up_to_the_display_check() {
    let display = format!(":{}", free_display());
    for args in [
        &["--window", "1024x768", "--fullscreen", "--ui-scale", "1.5"][..],
        &["--window-size", "1024x768", "--ui-scale", "0.5"],
        &["--ui-scale", "3", "--frames", "1"],
    ] {
        let err = window_refused(args, |c| {
            c.env("DISPLAY", &display).env_remove("WAYLAND_DISPLAY");
        });
        assert!(
            err.contains(&format!("DISPLAY={display}")),
            "{args:?}: {err}"
        );
    }
}

/// A Wayland session without XWayland: the window needs X11.
#[cfg(target_os = "linux")]
#[test]
fn a_wayland_session_without_xwayland_is_one_line_and_exit_code_2() {
    let err = window_refused(&["--frames", "1"], |c| {
        c.env_remove("DISPLAY").env("WAYLAND_DISPLAY", "wayland-9");
    });
    assert!(err.contains("WAYLAND_DISPLAY=wayland-9"), "{err}");
    assert!(
        err.contains("XWayland") && err.contains("xvfb-run"),
        "{err}"
    );
}

/// Past the check before opening (something listens on the display's
/// socket but is no X server: it hangs up), the windowing library's own
/// panic (`XOpenDisplay() failed!`, or a missing libX11 where there is none)
/// still becomes one line and exit code 2.
#[cfg(target_os = "linux")]
#[test]
fn the_windowing_library_failing_after_the_check_is_one_line_and_exit_code_2() {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};

    let n = free_display();
    let name = format!("/tmp/.X11-unix/X{n}");
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).expect("socket name");
    let listener = UnixListener::bind_addr(&addr).expect("bind the abstract socket");
    // Accepts and hangs up on every client; ends with the test process.
    std::thread::spawn(move || listener.incoming().for_each(drop));
    let display = format!(":{n}");
    let err = window_refused(&["--frames", "1"], |c| {
        c.env("DISPLAY", &display).env_remove("WAYLAND_DISPLAY");
    });
    assert!(
        err.contains(&format!(
            "cannot connect to the X server at DISPLAY={display}"
        )) || err.contains("is missing"),
        "{err}"
    );
}

/// The rows and stderr of `bench --format json` for `threads` (sorted-grid,
/// scalar, 1,000 units) run through `sh -c` with `prefix` before it and the
/// environment `env`; `RUST_MIN_STACK` removed unless set there.
#[cfg(target_os = "linux")]
fn bench_threads_in_shell(
    prefix: &str,
    env: &[(&str, &str)],
    threads: &str,
) -> (Vec<serde_json::Value>, String) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("{prefix} exec \"$BIN\" \"$@\""))
        .arg("sh")
        .args(["bench", "--units", "1000", "--threads", threads])
        .args(["--strategies", "sorted-grid", "--kernels", "scalar"])
        .args(["--frames", "3", "--warmup", "1", "--format", "json"])
        .env("BIN", env!("CARGO_BIN_EXE_spatial-query-lab"))
        .env_remove("RUST_MIN_STACK");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run sh");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let rows = serde_json::from_slice(&out.stdout).expect("a JSON array");
    (rows, err)
}

/// Checks W4 on `rows`: the row asking for `refused` threads carries no
/// timing under that label but the OS's refusal, said once on stderr; the
/// 1-thread row is measured.
#[cfg(target_os = "linux")]
fn assert_refused(rows: &[serde_json::Value], err: &str, refused: u64) {
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(rows[0]["threads"].as_u64(), Some(1));
    assert!(rows[0]["median_ms"].is_object(), "{}", rows[0]);
    let row = &rows[1];
    assert!(
        row["threads"].as_u64() != Some(refused) || row["median_ms"].is_null(),
        "a result labeled with {refused} threads the OS refused: {row}"
    );
    assert_eq!(row["threads"].as_u64(), Some(refused), "{row}");
    assert!(row["median_ms"].is_null(), "{row}");
    assert_eq!(row["frames"].as_u64(), Some(0), "{row}");
    let why = row["skipped"].as_str().unwrap_or_default();
    assert!(
        why.contains(&format!("the OS refused to start {refused} threads (")),
        "{row}"
    );
    let said = format!("bench: the OS refused to start {refused} threads (");
    assert_eq!(
        err.lines().filter(|l| l.starts_with(&said)).count(),
        1,
        "{err}"
    );
}

/// W4 without `ulimit`: a thread stack no 64-bit Linux can map
/// (`RUST_MIN_STACK` = 1 PiB, which `std` gives every thread it spawns)
/// makes every pool fail at once, mapping nothing.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
#[test]
fn bench_row_of_unmappable_threads_is_skipped_with_the_os_error() {
    let (rows, err) = bench_threads_in_shell("", &[("RUST_MIN_STACK", "1125899906842624")], "1,2");
    assert_refused(&rows, &err, 2);
}

/// W4 as the issue has it: `ulimit -v 400000` (KiB) leaves no room for 256
/// default 2 MiB stacks (512 MiB), so the pool is refused, before any thread
/// is spawned (spawning until the OS refused one made the process abort on
/// a failed allocation in about 1 run in 25).
#[cfg(target_os = "linux")]
#[test]
fn bench_under_ulimit_v_does_not_label_one_thread_as_256() {
    let (rows, err) = bench_threads_in_shell("ulimit -v 400000 &&", &[], "1,256");
    assert_refused(&rows, &err, 256);
    let why = rows[1]["skipped"].as_str().unwrap_or_default();
    assert!(why.contains("address-space limit (ulimit -v)"), "{why}");
}

/// `--kernels best` is the widest kernel this CPU runs, so the README's
/// commands measure something on any machine (a named kernel this CPU
/// lacks gives only skipped rows).
#[test]
fn bench_kernels_best_is_the_widest_kernel_this_cpu_runs() {
    let out = exe()
        .args(["bench", "--units", "1000", "--strategies", "sorted-grid"])
        .args(["--kernels", "best", "--frames", "2", "--warmup", "0"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let best = spatial_query_lab::engine::spatial::Kernel::best();
    assert_eq!(rows[0]["kernel"].as_str(), Some(best.key()));
    assert!(rows[0]["median_ms"].is_object(), "{}", rows[0]);
}

/// Case X11: flags given with a lesson are named, with what they do (the
/// scene over the step's settings; the lesson measures its own), before
/// the display check, so no window is needed.
#[test]
fn flags_a_lesson_overrides_are_named() {
    let out = exe()
        .args([
            "--lesson",
            "simd",
            "--units",
            "5000",
            "--workload",
            "battle",
        ])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let note = err.lines().next().unwrap_or_default();
    assert!(
        note.starts_with(
            "note: --lesson: --units, --workload change the scene over the step's own settings"
        ),
        "{err}"
    );
}

/// Case X9: a cell size the grid cannot honour is raised the same way for
/// every tiny value the table's range allows, and the row says so (the
/// cell used, and a note); below that range it is refused, as in a file
/// (case Y34, in `invalid_flags_exit_nonzero_with_one_line_naming_the_flag`).
#[test]
fn bench_rows_report_the_cell_the_grid_used() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "1000",
            "--strategies",
            "grid",
            "--kernels",
            "scalar",
        ])
        .args([
            "--cell-sizes",
            "0.02,0.01",
            "--frames",
            "1",
            "--warmup",
            "0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    let cells: Vec<f64> = rows
        .iter()
        .map(|r| r["cell_size"].as_f64().unwrap())
        .collect();
    assert!(cells.iter().all(|&c| c > 0.05), "{cells:?}");
    assert!(
        (cells[0] - cells[1]).abs() < 1e-6,
        "raised alike: {cells:?}"
    );
    for r in &rows {
        let note = r["note"].as_str().unwrap_or_default();
        assert!(note.contains("raised to"), "{r}");
        // Not every pair tested: the grid has many cells.
        assert!(r["candidates"].as_u64().unwrap() < 200_000, "{r}");
    }
}

/// Case X6: a grid of one cell over a million units is a naive scan; the
/// cost model predicts it and the row is skipped with the estimate, not
/// run for minutes.
#[test]
fn a_one_cell_grid_is_skipped_with_its_estimate() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "1000000",
            "--strategies",
            "grid",
            "--cell-sizes",
            "1000000",
        ])
        .args(["--world", "1000000", "--frames", "1", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 1);
    let why = rows[0]["skipped"].as_str().unwrap_or_default();
    assert!(why.contains("covers 100% of the world"), "{}", rows[0]);
}

/// A table of skipped rows says that nothing was measured, not "(0 rounds)".
#[test]
fn a_table_of_skipped_rows_says_nothing_was_measured() {
    let out = exe()
        .args([
            "bench",
            "--units",
            "1000000",
            "--strategies",
            "grid",
            "--cell-sizes",
            "1000000",
        ])
        .args(["--world", "1000000", "--frames", "1"])
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("Every row was skipped: nothing was measured"),
        "{md}"
    );
    assert!(!md.contains("0 rounds"), "{md}");
}
